import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitCli, rootApi, startStack, type RunningStack } from '@glp/testing';


/** Root's e-mail in the stack (identity's GITLAB_ROOT_EMAIL default): a user's own, verified e-mail. */
const ROOT_EMAIL = 'admin@example.com';

/**
 * Push rules enforced on real `git push` through the gateway (repo-admin's pre-receive check asking push-rules), one
 * rule at a time, configured through the REST API (`POST/PUT/DELETE /projects/:id/push_rule`): a violating push is
 * refused with GitLab's message (`remote: GitLab: <message>`, `ee/lib/ee/gitlab/checks/change_access.rb` and
 * `ee/lib/gitlab/checks/*`) and its ref does not move; a conforming push lands. One stack for the file.
 */
describe('push rules on git push', () => {
  let stack: RunningStack;
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-push-rules-'));
  let n = 0;

  const { api, expectJson } = rootApi(() => stack);
  const { env: gitEnv, git, mustGit } = gitCli(work);

  /** A project with `main` pushed (no rule yet), and a local clone of it that commits as `as`. */
  async function project(name: string) {
    const created = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name }) }), 201);
    const url = new URL(`${stack.url}/${created.path_with_namespace}.git`);
    url.username = 'root';
    url.password = stack.rootToken;
    const dir = path.join(work, name);
    await mustGit(work, 'init', '-q', '-b', 'main', dir);
    await mustGit(dir, 'remote', 'add', 'origin', url.toString());
    const ws = {
      id: created.id as number,
      dir,
      /** Commits a file (`content` or a small one) as `who` (author and committer unless `committer` says otherwise). */
      async commit(message: string, opts: { file?: string; content?: string | Buffer; author?: string; committer?: string } = {}): Promise<string> {
        writeFileSync(path.join(dir, opts.file ?? `file-${++n}.txt`), opts.content ?? `change ${n}\n`);
        await mustGit(dir, 'add', '-A');
        const committer = opts.committer ?? opts.author ?? `Root <${ROOT_EMAIL}>`;
        const [, cname, cmail] = /^(.*) <(.*)>$/.exec(committer)!;
        await mustGit(dir, '-c', `user.name=${cname}`, '-c', `user.email=${cmail}`, 'commit', '-q', '--allow-empty-message', '-m', message, ...(opts.author ? ['--author', opts.author] : []));
        return mustGit(dir, 'rev-parse', 'HEAD');
      },
      push: (...refspecs: string[]) => git(dir, 'push', 'origin', ...refspecs),
      /** What the repository says a ref is (git ls-remote through the gateway); undefined when it does not exist. */
      async remoteRef(ref: string): Promise<string | undefined> {
        const out = await mustGit(dir, 'ls-remote', 'origin', ref);
        return out.split('\n').find((l) => l.endsWith(`\t${ref}`))?.split('\t')[0];
      },
      /** Drops the last local commit (after a refused push). */
      reset: () => mustGit(dir, 'reset', '-q', '--hard', 'HEAD~1'),
      rule: (body: Record<string, unknown>, status = 201) => api(`/projects/${created.id}/push_rule`, { method: status === 201 ? 'POST' : 'PUT', body: JSON.stringify(body) }).then((r) => expectJson(r, status)),
    };
    // The repository is created by a job: wait until it answers, then push main.
    for (let i = 0; (await git(dir, 'ls-remote', 'origin')).code !== 0; i++) {
      if (i > 150) throw new Error('repository never created');
      await new Promise((r) => setTimeout(r, 200));
    }
    await ws.commit('Initial commit', { file: 'README.md', content: '# readme\n' });
    const first = await ws.push('main');
    if (first.code !== 0) throw new Error(`first push failed: ${first.stderr}`);
    return ws;
  }
  type Workspace = Awaited<ReturnType<typeof project>>;

  /** A refused push: GitLab's message on git's stderr, every ref rejected, and `ref` where it was. */
  async function expectRefused(ws: Workspace, refspecs: string[], message: string, ref = 'refs/heads/main') {
    const before = await ws.remoteRef(ref);
    const res = await ws.push(...refspecs);
    expect(res.code).not.toBe(0);
    // The whole line is the message (git pads `remote:` lines with spaces).
    expect(res.stderr).toMatch(new RegExp(`^remote: GitLab: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} *$`, 'm'));
    expect(res.stderr).toContain('(pre-receive hook declined)');
    expect(await ws.remoteRef(ref)).toBe(before);
  }
  async function expectLanded(ws: Workspace, refspecs: string[], ref: string, sha: string | undefined) {
    const res = await ws.push(...refspecs);
    if (res.code !== 0) throw new Error(`push refused: ${res.stderr}`);
    expect(await ws.remoteRef(ref)).toBe(sha);
  }

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_push_rules' });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('commit_message_regex and commit_message_negative_regex', async () => {
    const ws = await project('rules-message');
    await ws.rule({ commit_message_regex: '^JIRA-\\d+', commit_message_negative_regex: 'do not merge' });
    await ws.commit('fix the thing');
    await expectRefused(ws, ['main'], "Commit message does not follow the pattern '^JIRA-\\d+'");
    await ws.reset();
    await ws.commit('JIRA-12 fix, do not merge');
    await expectRefused(ws, ['main'], "Commit message contains the forbidden pattern 'do not merge'");
    await ws.reset();
    // Multi-line: GitLab matches the message in multiline mode (`^` at any line start).
    const ok = await ws.commit('Fix the thing\n\nJIRA-12');
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('branch_name_regex (not for the default branch)', async () => {
    const ws = await project('rules-branch');
    await ws.rule({ branch_name_regex: '^(feature|fix)/' });
    const sha = await ws.commit('on main');
    await expectRefused(ws, ['HEAD:refs/heads/wip'], "Branch name does not follow the pattern '^(feature|fix)/'", 'refs/heads/wip');
    expect(await ws.remoteRef('refs/heads/wip')).toBeUndefined();
    await expectLanded(ws, ['HEAD:refs/heads/feature/x'], 'refs/heads/feature/x', sha);
    await expectLanded(ws, ['main'], 'refs/heads/main', sha);
  });

  it('author_email_regex (committer first, then author)', async () => {
    const ws = await project('rules-email');
    await ws.rule({ author_email_regex: '@example\\.com$' });
    await ws.commit('by eve', { author: 'Eve <eve@evil.test>', committer: `Root <${ROOT_EMAIL}>` });
    await expectRefused(ws, ['main'], "Author's email 'eve@evil.test' does not follow the pattern '@example\\.com$'");
    await ws.reset();
    await ws.commit('committed by eve', { author: `Root <${ROOT_EMAIL}>`, committer: 'Eve <eve@evil.test>' });
    await expectRefused(ws, ['main'], "Committer's email 'eve@evil.test' does not follow the pattern '@example\\.com$'");
    await ws.reset();
    const ok = await ws.commit('by carol', { author: 'Carol <carol@example.com>', committer: `Root <${ROOT_EMAIL}>` });
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('file_name_regex and prevent_secrets', async () => {
    const ws = await project('rules-files');
    await ws.rule({ file_name_regex: '\\.exe$', prevent_secrets: true });
    await ws.commit('add a tool', { file: 'tool.exe' });
    // GitLab `ee/lib/ee/gitlab/checks/diff_check.rb` file_name_validation: the pattern as Ruby's String#inspect (backslash doubled).
    await expectRefused(ws, ['main'], 'File name tool.exe was prohibited by the pattern "\\\\.exe$".');
    await ws.reset();
    await ws.commit('add a key', { file: 'id_rsa', content: '-----BEGIN RSA PRIVATE KEY-----\n' });
    await expectRefused(ws, ['main'], 'File name id_rsa was prohibited by the pattern "id_rsa$".');
    await ws.reset();
    const ok = await ws.commit('add notes', { file: 'notes.txt' });
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('max_file_size', async () => {
    const ws = await project('rules-size');
    await ws.rule({ max_file_size: 1 });
    await ws.commit('big', { file: 'big.bin', content: Buffer.alloc(1024 * 1024 + 1, 7) });
    // GitLab: `File "big.bin" is larger than the allowed size of 1 MB` (ee/lib/ee/gitlab/checks/change_access.rb file_size_validation).
    await expectRefused(ws, ['main'], 'File "big.bin" is larger than the allowed size of 1 MB');
    await ws.reset();
    const ok = await ws.commit('exactly 1 MiB', { file: 'fits.bin', content: Buffer.alloc(1024 * 1024, 7) });
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('deny_delete_tag', async () => {
    const ws = await project('rules-tags');
    await ws.rule({ deny_delete_tag: true });
    const head = await mustGit(ws.dir, 'rev-parse', 'HEAD');
    await mustGit(ws.dir, 'tag', 'v1');
    await expectLanded(ws, ['v1'], 'refs/tags/v1', head);
    await expectRefused(ws, [':refs/tags/v1'], 'You cannot delete a tag', 'refs/tags/v1');
    // Branches may still be deleted.
    await expectLanded(ws, ['HEAD:refs/heads/tmp'], 'refs/heads/tmp', head);
    await expectLanded(ws, [':refs/heads/tmp'], 'refs/heads/tmp', undefined);
  });

  it('member_check', async () => {
    const ws = await project('rules-members');
    await ws.rule({ member_check: true });
    await ws.commit('by a stranger', { author: 'Nobody <nobody@nowhere.test>', committer: `Root <${ROOT_EMAIL}>` });
    await expectRefused(ws, ['main'], "Author 'nobody@nowhere.test' is not a member of team");
    await ws.reset();
    const ok = await ws.commit('by root', { author: `Root <${ROOT_EMAIL}>` });
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('commit_committer_check', async () => {
    const ws = await project('rules-committer');
    await ws.rule({ commit_committer_check: true });
    await ws.commit('committed by someone else', { author: `Root <${ROOT_EMAIL}>`, committer: 'Stranger <stranger@example.com>' });
    await expectRefused(ws, ['main'], "You cannot push commits for 'stranger@example.com'. You can only push commits that were committed with one of your own verified emails.");
    await ws.reset();
    const ok = await ws.commit('committed by me', { author: 'Carol <carol@example.com>', committer: `Root <${ROOT_EMAIL}>` });
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
  });

  it('reject_unsigned_commits; deleting the rule lets the push through', async () => {
    const ws = await project('rules-signed');
    await ws.rule({ reject_unsigned_commits: true });
    const unsigned = await ws.commit('unsigned');
    await expectRefused(ws, ['main'], 'Commit must be signed with a GPG key');
    // A commit object with a gpgsig header (what `git commit -S` writes).
    const tree = await mustGit(ws.dir, 'rev-parse', 'HEAD^{tree}');
    const parent = await mustGit(ws.dir, 'rev-parse', 'HEAD~1');
    const raw = `tree ${tree}\nparent ${parent}\nauthor Root <${ROOT_EMAIL}> 1700000000 +0000\ncommitter Root <${ROOT_EMAIL}> 1700000000 +0000\n` +
      'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nSigned\n';
    const signed = execFileSync('git', ['-C', ws.dir, 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: raw, encoding: 'utf8', env: gitEnv }).trim();
    await expectLanded(ws, [`${signed}:refs/heads/main`], 'refs/heads/main', signed);

    await mustGit(ws.dir, 'reset', '-q', '--hard', signed);
    const other = await ws.commit('unsigned again');
    expect(other).not.toBe(unsigned);
    await expectRefused(ws, ['main'], 'Commit must be signed with a GPG key');
    expect((await api(`/projects/${ws.id}/push_rule`, { method: 'DELETE' })).status).toBe(204);
    await expectLanded(ws, ['main'], 'refs/heads/main', other);
  });

  it('a catastrophic regex on a 50,000-character message answers within seconds (RE2)', async () => {
    const ws = await project('rules-redos');
    await ws.rule({ commit_message_regex: '(a+)+$' });
    await ws.commit(`${'a'.repeat(50_000)}!`);
    const started = Date.now();
    await expectRefused(ws, ['main'], "Commit message does not follow the pattern '(a+)+$'");
    expect(Date.now() - started).toBeLessThan(5000);
    await ws.reset();
    const ok = await ws.commit('a'.repeat(50_000));
    const t = Date.now();
    await expectLanded(ws, ['main'], 'refs/heads/main', ok);
    expect(Date.now() - t).toBeLessThan(5000);
    // The services still answer at once.
    const t2 = Date.now();
    expect((await api(`/projects/${ws.id}/push_rule`)).status).toBe(200);
    expect(Date.now() - t2).toBeLessThan(1000);
  });
});
