import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitCli, rootApi, startStack, type RunningStack } from '@glp/testing';

const ROOT_EMAIL = 'admin@example.com';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Push rules cannot be walked around: a commit a rule refuses on a branch is refused as well when pushed first as a tag
 * or to a ref outside refs/heads/ and refs/tags/ (which would otherwise make it "not new" for the later branch push),
 * and so it is refused again on the branch. Real `git push` through the gateway, one stack for the file.
 */
describe('push rules that cannot be walked around', () => {
  let stack: RunningStack;
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-push-bypass-'));
  const { api, expectJson } = rootApi(() => stack);
  const { git, mustGit } = gitCli(work);

  /** A project with `main` pushed and a push rule, and a local clone committing as root. */
  async function project(name: string, rule: Record<string, unknown>) {
    const created = await expectJson(await api('/projects', { method: 'POST', body: JSON.stringify({ name }) }), 201);
    const url = new URL(`${stack.url}/${created.path_with_namespace}.git`);
    url.username = 'root';
    url.password = stack.rootToken;
    const dir = path.join(work, name);
    await mustGit(work, 'init', '-q', '-b', 'main', dir);
    await mustGit(dir, 'remote', 'add', 'origin', url.toString());
    for (let i = 0; (await git(dir, 'ls-remote', 'origin')).code !== 0; i++) {
      if (i > 150) throw new Error('repository never created');
      await new Promise((r) => setTimeout(r, 200));
    }
    const commit = async (message: string, file: string) => {
      writeFileSync(path.join(dir, file), `${message}\n`);
      await mustGit(dir, 'add', '-A');
      await mustGit(dir, '-c', 'user.name=Root', '-c', `user.email=${ROOT_EMAIL}`, 'commit', '-q', '-m', message);
      return mustGit(dir, 'rev-parse', 'HEAD');
    };
    await commit('JIRA-1 initial', 'README.md');
    const first = await git(dir, 'push', 'origin', 'main');
    if (first.code !== 0) throw new Error(`first push failed: ${first.stderr}`);
    await expectJson(await api(`/projects/${created.id}/push_rule`, { method: 'POST', body: JSON.stringify(rule) }), 201);
    /** Every ref of the repository, as git sees it through the gateway. */
    const remoteRefs = async () => new Map((await mustGit(dir, 'ls-remote', 'origin')).split('\n').filter(Boolean).map((l) => l.split('\t').reverse() as [string, string]));
    return { dir, commit, push: (...refspecs: string[]) => git(dir, 'push', 'origin', ...refspecs), remoteRefs };
  }

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_push_bypass' });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('a commit refused by commit_message_regex is refused as a tag, outside refs/heads and refs/tags, then on a branch', async () => {
    const ws = await project('bypass-message', { commit_message_regex: '^JIRA-\\d+' });
    const before = await ws.remoteRefs();
    const bad = await ws.commit('sneak it in', 'bad.txt');
    const refused = `^remote: GitLab: ${escape("Commit message does not follow the pattern '^JIRA-\\d+'")} *$`;

    // Step one of the walk-around, as a lightweight tag and as an annotated one.
    const asTag = await ws.push(`${bad}:refs/tags/v-sneak`);
    expect(asTag.code).not.toBe(0);
    expect(asTag.stderr).toMatch(new RegExp(refused, 'm'));
    expect(asTag.stderr).toContain('(pre-receive hook declined)');
    await mustGit(ws.dir, '-c', 'user.name=Root', '-c', `user.email=${ROOT_EMAIL}`, 'tag', '-a', '-m', 'JIRA-2 release', 'v-annotated', bad);
    const asAnnotated = await ws.push('refs/tags/v-annotated');
    expect(asAnnotated.code).not.toBe(0);
    expect(asAnnotated.stderr).toMatch(new RegExp(refused, 'm'));

    // Step one again, to a ref no branch or tag check looks at.
    for (const ref of ['refs/foo/x', 'refs/merge-requests/1/head', 'refs/glp-mirror/heads/main', 'refs/keep-around/x']) {
      const outside = await ws.push(`${bad}:${ref}`);
      expect(outside.code).not.toBe(0);
      expect(outside.stderr).toMatch(new RegExp(`^remote: GitLab: ${escape('You cannot push to a ref outside refs/heads/ and refs/tags/.')} *$`, 'm'));
    }
    expect(await ws.remoteRefs()).toEqual(before);

    // Step two: the commit is still new, so the branch push is refused too.
    const asBranch = await ws.push(`${bad}:refs/heads/main`);
    expect(asBranch.code).not.toBe(0);
    expect(asBranch.stderr).toMatch(new RegExp(refused, 'm'));
    const asNewBranch = await ws.push(`${bad}:refs/heads/feature`);
    expect(asNewBranch.stderr).toMatch(new RegExp(refused, 'm'));
    expect(await ws.remoteRefs()).toEqual(before);

    // A conforming commit still lands as a tag and on the branch.
    await mustGit(ws.dir, 'reset', '-q', '--hard', 'HEAD~1');
    const good = await ws.commit('JIRA-3 fine', 'good.txt');
    expect((await ws.push(`${good}:refs/tags/v-good`)).code).toBe(0);
    expect((await ws.push('main')).code).toBe(0);
    const after = await ws.remoteRefs();
    expect([after.get('refs/tags/v-good'), after.get('refs/heads/main')]).toEqual([good, good]);
  });

  it('author_email_regex and member_check hold for tags as for branches', async () => {
    const ws = await project('bypass-email', { author_email_regex: '@corp\\.example$' });
    const bad = await ws.commit('JIRA-4 wrong address', 'x.txt');
    const res = await ws.push(`${bad}:refs/tags/v1`);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(new RegExp(`^remote: GitLab: ${escape(`Committer's email '${ROOT_EMAIL}' does not follow the pattern '@corp\\.example$'`)} *$`, 'm'));
    expect((await ws.remoteRefs()).has('refs/tags/v1')).toBe(false);

    const member = await project('bypass-member', { member_check: true });
    const stranger = await member.commit('JIRA-5 by a stranger', 'y.txt');
    await mustGit(member.dir, '-c', 'user.name=Stranger', '-c', 'user.email=nobody@nowhere.example', 'commit', '-q', '--amend', '--reset-author', '-m', 'JIRA-5');
    const amended = await mustGit(member.dir, 'rev-parse', 'HEAD');
    expect(amended).not.toBe(stranger);
    const tagged = await member.push(`${amended}:refs/tags/v1`);
    expect(tagged.stderr).toMatch(new RegExp(`^remote: GitLab: ${escape("Author 'nobody@nowhere.example' is not a member of team")} *$`, 'm'));
    expect((await member.remoteRefs()).has('refs/tags/v1')).toBe(false);
  });
});
