import { DiffTreeParser, parseIdent, parseRawCommit, type ChangedPath } from './commit-records';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

describe('parseRawCommit', () => {
  it('reads author, committer, the message and whether a gpgsig header is there', () => {
    const raw = Buffer.from([
      `tree ${A}`, `parent ${B}`,
      'author Alice Liddell <alice@example.com> 1700000000 +0100',
      'committer Bob <bob@example.com> 1700000001 +0000',
      'gpgsig -----BEGIN PGP SIGNATURE-----', ' ', ' iQEzBAABCAAdFiEE', ' -----END PGP SIGNATURE-----',
      '', 'Subject line', '', 'author fake <x@y> in the body', '',
    ].join('\n'));
    expect(parseRawCommit(A, raw)).toEqual({
      id: A, message: 'Subject line\n\nauthor fake <x@y> in the body\n', authorName: 'Alice Liddell', authorEmail: 'alice@example.com',
      committerName: 'Bob', committerEmail: 'bob@example.com', signed: true,
    });
  });

  it('an unsigned commit, an empty message, sha256 signatures', () => {
    const plain = parseRawCommit(A, Buffer.from(`tree ${A}\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\n`));
    expect(plain).toMatchObject({ message: '', signed: false, authorEmail: 'a@x', committerEmail: 'c@x' });
    expect(parseRawCommit(A, Buffer.from(`tree ${A}\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\ngpgsig-sha256 x\n y\n\nm`)).signed).toBe(true);
    // A message mentioning gpgsig is not a signature.
    expect(parseRawCommit(A, Buffer.from(`tree ${A}\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\ngpgsig fake\n`)).signed).toBe(false);
  });

  it('splits ident lines as git does', () => {
    expect(parseIdent('Jane Q. <jane@x.org> 1 +0000')).toEqual({ name: 'Jane Q.', email: 'jane@x.org' });
    expect(parseIdent('<only@mail> 1 +0000')).toEqual({ name: '', email: 'only@mail' });
    expect(parseIdent('no email')).toEqual({ name: 'no email', email: '' });
  });
});

describe('DiffTreeParser', () => {
  const parse = (records: string[]) => {
    const out: [string, ChangedPath][] = [];
    const commits: string[] = [];
    const p = new DiffTreeParser((c, f) => out.push([c, f]), (c) => commits.push(c));
    for (const r of records) p.push(Buffer.from(r));
    return { out, commits };
  };

  it('reads additions, renames, deletions and commits without changes', () => {
    const { out, commits } = parse([
      A, `:000000 100644 ${Z} ${B} A`, 'id_rsa',
      B, `:100644 100644 ${A} ${B} R087`, 'old/name.txt', 'new/name.txt', `:100644 000000 ${A} ${Z} D`, 'gone.txt',
      'c'.repeat(40),
    ]);
    expect(commits).toEqual([A, B, 'c'.repeat(40)]);
    expect(out).toEqual([
      [A, { path: 'id_rsa', oldPath: '', status: 'added', blobId: B, mode: '100644' }],
      [B, { path: 'new/name.txt', oldPath: 'old/name.txt', status: 'renamed', blobId: B, mode: '100644' }],
      [B, { path: 'gone.txt', oldPath: '', status: 'deleted', blobId: Z, mode: '000000' }],
    ]);
  });

  it('never takes a path that looks like a commit id for a commit', () => {
    const { out, commits } = parse([A, `:000000 100644 ${Z} ${B} A`, B, `:100644 100644 ${A} ${B} T`, 'link']);
    expect(commits).toEqual([A]);
    expect(out.map(([, f]) => [f.path, f.status])).toEqual([[B, 'added'], ['link', 'type_changed']]);
  });

  it('refuses output it does not understand', () => {
    expect(() => parse([`:000000 100644 ${Z} ${B} A`])).toThrow('before any commit');
    expect(() => parse(['garbage'])).toThrow('unexpected record');
  });
});
