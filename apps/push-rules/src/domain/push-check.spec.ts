import { applyChanges, DEFAULT_SETTINGS, type PushRuleChanges } from './push-rule-attributes';
import { checkPush, lookupsNeeded, planFor, rubyInspect, type PushedCommit, type PushInput, type PushLookups } from './push-check';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const rule = (c: PushRuleChanges) => applyChanges(DEFAULT_SETTINGS, c);
const commit = (over: Partial<PushedCommit> = {}): PushedCommit => ({
  id: B, message: 'feat: add x\n\nSigned-off-by: Ann <ann@example.com>\n', authorName: 'Ann', authorEmail: 'ann@example.com',
  committerName: 'Ann', committerEmail: 'ann@example.com', signed: true, files: [], ...over,
});
const push = (over: Partial<PushInput> = {}): PushInput => ({
  changes: [{ ref: 'refs/heads/feature/x', oldRev: A, newRev: B }], defaultBranch: 'main', commits: [commit()], ...over,
});
const denied = (c: PushRuleChanges, input: PushInput, lookups?: PushLookups) => {
  const d = checkPush(rule(c), input, lookups);
  return d.allowed ? undefined : d.message;
};

describe('push rule enforcement (ee/lib/ee/gitlab/checks/*)', () => {
  it('allows anything without a rule, and a rule with nothing on', () => {
    expect(checkPush(undefined, push())).toEqual({ allowed: true, message: '' });
    expect(checkPush(DEFAULT_SETTINGS, push())).toEqual({ allowed: true, message: '' });
  });

  it('deny_delete_tag: deleting an existing tag, not creating or moving one', () => {
    expect(denied({ deny_delete_tag: true }, push({ changes: [{ ref: 'refs/tags/v1', oldRev: A, newRev: Z }], commits: [] }))).toBe('You cannot delete a tag');
    expect(denied({ deny_delete_tag: true }, push({ changes: [{ ref: 'refs/tags/v1', oldRev: Z, newRev: A }], commits: [] }))).toBeUndefined();
    expect(denied({ deny_delete_tag: true }, push({ changes: [{ ref: 'refs/heads/x', oldRev: A, newRev: Z }], commits: [] }))).toBeUndefined();
  });

  it('branch_name_regex: new/updated branches, not the default branch, deletions nor tags', () => {
    const r = { branch_name_regex: '^(feature|hotfix)\\/' };
    expect(denied(r, push({ changes: [{ ref: 'refs/heads/wip', oldRev: Z, newRev: B }] }))).toBe("Branch name does not follow the pattern '^(feature|hotfix)\\/'");
    expect(denied(r, push())).toBeUndefined();
    expect(denied(r, push({ changes: [{ ref: 'refs/heads/main', oldRev: A, newRev: B }] }))).toBeUndefined();
    expect(denied(r, push({ changes: [{ ref: 'refs/heads/wip', oldRev: A, newRev: Z }], commits: [] }))).toBeUndefined();
    expect(denied(r, push({ changes: [{ ref: 'refs/tags/wip', oldRev: Z, newRev: B }] }))).toBeUndefined();
  });

  it('commit_message_regex is multiline; commit_message_negative_regex forbids', () => {
    expect(denied({ commit_message_regex: '^JIRA-\\d+' }, push())).toBe("Commit message does not follow the pattern '^JIRA-\\d+'");
    // (?m): ^ matches at the second line
    expect(denied({ commit_message_regex: '^JIRA-\\d+' }, push({ commits: [commit({ message: 'title\nJIRA-12 body' })] }))).toBeUndefined();
    expect(denied({ commit_message_negative_regex: 'ssh:\\/\\/' }, push({ commits: [commit({ message: 'see\nssh://x' })] })))
      .toBe("Commit message contains the forbidden pattern 'ssh:\\/\\/'");
    // chomped: "$" right before the trailing newline is the end of the message
    expect(denied({ commit_message_negative_regex: 'wip$' }, push({ commits: [commit({ message: 'this is wip\n' })] })))
      .toBe("Commit message contains the forbidden pattern 'wip$'");
    expect(denied({ commit_message_negative_regex: 'ssh:' }, push())).toBeUndefined();
  });

  it('checks the commits of every ref a push creates or moves: tags too, so a refused commit cannot land as a tag first', () => {
    const tag = push({ changes: [{ ref: 'refs/tags/v1', oldRev: Z, newRev: B }] });
    expect(denied({ commit_message_regex: '^JIRA-\\d+' }, tag)).toBe("Commit message does not follow the pattern '^JIRA-\\d+'");
    expect(denied({ author_email_regex: '@corp\\.com$' }, tag)).toBe("Committer's email 'ann@example.com' does not follow the pattern '@corp\\.com$'");
    expect(denied({ reject_unsigned_commits: true }, push({ ...tag, commits: [commit({ signed: false })] }))).toBe('Commit must be signed with a GPG key');
    expect(denied({ member_check: true }, tag, { knownEmails: new Set() })).toBe("Author 'ann@example.com' is not a member of team");
    expect(lookupsNeeded(rule({ member_check: true, commit_committer_check: true }), tag)).toEqual({ emails: ['ann@example.com'], pusher: true });
    // A moved tag, and a ref of any other kind repo-admin let through, are checked the same way.
    expect(denied({ commit_message_regex: '^JIRA' }, push({ changes: [{ ref: 'refs/tags/v1', oldRev: A, newRev: B }] }))).toBeDefined();
    expect(denied({ commit_message_regex: '^JIRA' }, push({ changes: [{ ref: 'refs/foo/x', oldRev: Z, newRev: B }] }))).toBeDefined();
    // Deleting a tag brings no commit.
    expect(denied({ commit_message_regex: '^JIRA' }, push({ changes: [{ ref: 'refs/tags/v1', oldRev: A, newRev: Z }], commits: [] }))).toBeUndefined();
  });

  it('author_email_regex: the committer first, then the author', () => {
    const r = { author_email_regex: '@example\\.com$' };
    expect(denied(r, push({ commits: [commit({ committerEmail: 'c@evil.org', authorEmail: 'a@evil.org' })] })))
      .toBe("Committer's email 'c@evil.org' does not follow the pattern '@example\\.com$'");
    expect(denied(r, push({ commits: [commit({ authorEmail: 'a@evil.org' })] })))
      .toBe("Author's email 'a@evil.org' does not follow the pattern '@example\\.com$'");
    expect(denied(r, push())).toBeUndefined();
  });

  it('commit_committer_check: the committer email must be the pusher\'s; commit_committer_name_check: the name', () => {
    const pusher = { pusher: { email: 'Ann@Example.com', name: 'Ann' } };
    expect(denied({ commit_committer_check: true }, push(), pusher)).toBeUndefined();
    expect(denied({ commit_committer_check: true }, push({ commits: [commit({ committerEmail: 'bob@example.com' })] }), pusher))
      .toBe("You cannot push commits for 'bob@example.com'. You can only push commits that were committed with one of your own verified emails.");
    expect(denied({ commit_committer_name_check: true }, push(), pusher)).toBeUndefined();
    expect(denied({ commit_committer_name_check: true }, push({ commits: [commit({ committerName: 'Bob' })] }), pusher))
      .toBe("Your git commit name 'Bob' does not match your user name 'Ann'");
  });

  it('reject_unsigned_commits and reject_non_dco_commits', () => {
    expect(denied({ reject_unsigned_commits: true }, push({ commits: [commit({ signed: false })] }))).toBe('Commit must be signed with a GPG key');
    expect(denied({ reject_unsigned_commits: true }, push())).toBeUndefined();
    expect(denied({ reject_non_dco_commits: true }, push({ commits: [commit({ message: 'no sign-off' })] }))).toBe('Commit message must contain a DCO signoff');
    expect(denied({ reject_non_dco_commits: true }, push())).toBeUndefined();
  });

  it('member_check: the author, then a differing committer, must be users', () => {
    const known = (...e: string[]) => ({ knownEmails: new Set(e) });
    expect(denied({ member_check: true }, push(), known('ann@example.com'))).toBeUndefined();
    expect(denied({ member_check: true }, push({ commits: [commit({ authorEmail: 'Zed@x.org' })] }), known('ann@example.com')))
      .toBe("Author 'Zed@x.org' is not a member of team");
    expect(denied({ member_check: true }, push({ commits: [commit({ committerEmail: 'bob@x.org' })] }), known('ann@example.com')))
      .toBe("Committer 'bob@x.org' is not a member of team");
    expect(lookupsNeeded(rule({ member_check: true }), push({ commits: [commit(), commit({ authorEmail: 'ANN@example.com', committerEmail: 'Bob@x.org' })] })))
      .toEqual({ emails: ['ann@example.com', 'bob@x.org'], pusher: false });
    expect(lookupsNeeded(rule({ commit_committer_check: true }), push())).toEqual({ emails: [], pusher: true });
    // a branch deletion looks nothing up
    expect(lookupsNeeded(rule({ member_check: true }), push({ changes: [{ ref: 'refs/heads/x', oldRev: A, newRev: Z }] })).emails).toEqual([]);
  });

  it('commit checks stop at the first broken rule, in GitLab\'s order, and skip branch deletions', () => {
    const all = { commit_message_regex: '^nope', reject_unsigned_commits: true, member_check: true };
    expect(denied(all, push({ commits: [commit({ signed: false })] }))).toBe("Commit message does not follow the pattern '^nope'");
    expect(denied({ reject_unsigned_commits: true, member_check: true }, push({ commits: [commit({ signed: false })] }))).toBe('Commit must be signed with a GPG key');
    expect(denied(all, push({ changes: [{ ref: 'refs/heads/x', oldRev: A, newRev: Z }] }))).toBeUndefined();
    // ref checks come before commit checks
    expect(denied({ ...all, deny_delete_tag: true }, push({ changes: [{ ref: 'refs/heads/f', oldRev: A, newRev: B }, { ref: 'refs/tags/v1', oldRev: A, newRev: Z }] })))
      .toBe('You cannot delete a tag');
  });

  it('file_name_regex and prevent_secrets on added/renamed files; max_file_size on non-deleted files', () => {
    const files = (...f: PushedCommit['files']) => push({ commits: [commit({ files: f })] });
    const f = (path: string, status = 'added', size = 10) => ({ path, oldPath: '', status, size });
    expect(denied({ file_name_regex: '(jar|exe)$' }, files(f('bin/tool.exe')))).toBe('File name bin/tool.exe was prohibited by the pattern "(jar|exe)$".');
    expect(denied({ file_name_regex: '(jar|exe)$' }, files(f('bin/tool.exe', 'modified')))).toBeUndefined();
    expect(denied({ file_name_regex: '(jar|exe)$' }, files({ path: 'b.jar', oldPath: 'a.txt', status: 'renamed', size: 1 }))).toBe('File name b.jar was prohibited by the pattern "(jar|exe)$".');
    expect(denied({ prevent_secrets: true }, files(f('home/.ssh/id_rsa')))).toBe('File name home/.ssh/id_rsa was prohibited by the pattern "id_rsa$".');
    expect(denied({ prevent_secrets: true }, files(f('certs/server.pem')))).toBe('File name certs/server.pem was prohibited by the pattern "\\\\.(pem|key)$".');
    expect(denied({ prevent_secrets: true }, files(f('.bash_history')))).toBe('File name .bash_history was prohibited by the pattern "[._]history$".');
    expect(denied({ prevent_secrets: true }, files(f('aws/credentials')))).toBe('File name aws/credentials was prohibited by the pattern "aws\\\\/credentials$".');
    expect(denied({ prevent_secrets: true }, files(f('src/key.ts'), f('docs/history.md')))).toBeUndefined();
    const mib = 1024 * 1024;
    expect(denied({ max_file_size: 1 }, files(f('big.bin', 'added', mib + 1)))).toBe('File "big.bin" is larger than the allowed size of 1 MB');
    expect(denied({ max_file_size: 1 }, files(f('ok.bin', 'modified', mib)))).toBeUndefined();
    expect(denied({ max_file_size: 1 }, files(f('gone.bin', 'deleted', 5 * mib)))).toBeUndefined();
    expect(rubyInspect('a"b\\c#{x}')).toBe('"a\\"b\\\\c\\#{x}"');
  });

  it('plans what repo-admin must collect', () => {
    expect(planFor(undefined)).toEqual({ active: false, needsCommits: false, needsFiles: false, needsSignatures: false, maxFileSizeBytes: 0 });
    expect(planFor(DEFAULT_SETTINGS).active).toBe(false);
    expect(planFor(rule({ deny_delete_tag: true }))).toEqual({ active: true, needsCommits: false, needsFiles: false, needsSignatures: false, maxFileSizeBytes: 0 });
    expect(planFor(rule({ branch_name_regex: 'x' })).needsCommits).toBe(false);
    expect(planFor(rule({ reject_unsigned_commits: true }))).toMatchObject({ needsCommits: true, needsFiles: false, needsSignatures: true });
    expect(planFor(rule({ max_file_size: 2 }))).toMatchObject({ active: true, needsCommits: true, needsFiles: true, maxFileSizeBytes: 2 * 1024 * 1024 });
  });

  it('a catastrophic pattern on a 100k-character message finishes in milliseconds (RE2, linear time)', () => {
    const message = `${'a'.repeat(100_000)}!`;
    const started = performance.now();
    expect(denied({ commit_message_regex: '(a+)+$' }, push({ commits: [commit({ message })] }))).toBe("Commit message does not follow the pattern '(a+)+$'");
    expect(denied({ commit_message_negative_regex: '^(a|aa)+$' }, push({ commits: [commit({ message })] }))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
  });
});
