import { ANONYMOUS, type Actor } from '@glp/service-kit';
import { decidePush, PUSH_MESSAGES, type PushContext, type PushPolicy } from './push-policy';
import { BLANK_SHA1 } from './ref-updates';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'] };

const ctx = (over: Partial<PushContext> = {}): PushContext => ({
  projectId: 1, actor: alice, service: 'git-receive-pack', changes: [], defaultBranch: 'main', pushOptions: [], quarantine: {}, repoDir: '/nonexistent', ...over,
});
const change = (ref: string, oldRev = BLANK_SHA1, newRev = A) => ({ oldRev, newRev, ref });

describe('push policy', () => {
  it('lets a signed-in user with a push grant create, move and delete branches and tags', async () => {
    expect(await decidePush(ctx({
      changes: [change('refs/heads/topic'), change('refs/heads/main', A, B), change('refs/heads/old', A, BLANK_SHA1), change('refs/tags/v1.0'), change('refs/tags/v0.9', A, BLANK_SHA1)],
    }))).toEqual({ allowed: true });
  });

  it('refuses anyone without a push grant', async () => {
    expect(await decidePush(ctx({ actor: ANONYMOUS, changes: [change('refs/heads/x')] }))).toEqual({ allowed: false, message: PUSH_MESSAGES.pushCode });
    expect(await decidePush(ctx({ service: 'git-upload-pack', changes: [change('refs/heads/x')] }))).toEqual({ allowed: false, message: PUSH_MESSAGES.pushCode });
  });

  it('keeps the default branch (GitLab BranchCheck)', async () => {
    expect(await decidePush(ctx({ changes: [change('refs/heads/main', A, BLANK_SHA1)] }))).toEqual({
      allowed: false, message: 'The default branch of a project cannot be deleted.',
    });
    // The first refusal cancels the whole push.
    expect((await decidePush(ctx({ changes: [change('refs/heads/ok'), change('refs/heads/main', A, BLANK_SHA1)] }))).allowed).toBe(false);
  });

  it('refuses branch names like commit ids, and names this platform cannot keep', async () => {
    expect(await decidePush(ctx({ changes: [change(`refs/heads/${A}`)] }))).toEqual({ allowed: false, message: PUSH_MESSAGES.hexBranchName });
    expect(await decidePush(ctx({ changes: [change(`refs/heads/${A}/x`)] }))).toEqual({ allowed: false, message: PUSH_MESSAGES.hexBranchName });
    expect((await decidePush(ctx({ changes: [change(`refs/heads/${A}x`)] }))).allowed).toBe(true);
    expect(await decidePush(ctx({ changes: [change('refs/heads/x.lock')] }))).toEqual({ allowed: false, message: PUSH_MESSAGES.invalidBranchName });
  });

  it('refuses creating or moving any ref outside refs/heads/ and refs/tags/ (deleting one is fine)', async () => {
    const outside = { allowed: false, message: 'You cannot push to a ref outside refs/heads/ and refs/tags/.' };
    expect(await decidePush(ctx({ changes: [change('refs/foo/x')] }))).toEqual(outside);
    expect(await decidePush(ctx({ changes: [change('refs/merge-requests/1/head', A, B)] }))).toEqual(outside);
    expect(await decidePush(ctx({ changes: [change('refs/heads/ok'), change('refs/glp-mirror/heads/main')] }))).toEqual(outside);
    expect(await decidePush(ctx({ changes: [change('refs/heads/')] }))).toEqual(outside);
    expect((await decidePush(ctx({ changes: [change('refs/foo/x', A, BLANK_SHA1)] }))).allowed).toBe(true);
  });

  it('refuses tags named like the default branch, a commit id or a full ref (GitLab TagCheck)', async () => {
    expect(await decidePush(ctx({ changes: [change('refs/tags/main')] }))).toEqual({ allowed: false, message: 'You cannot use default branch name to create a tag' });
    expect(await decidePush(ctx({ changes: [change(`refs/tags/${B}`)] }))).toEqual({ allowed: false, message: 'You cannot create a tag with a SHA-1 or SHA-256 tag name.' });
    expect(await decidePush(ctx({ changes: [change('refs/tags/refs/heads/x')] }))).toEqual({ allowed: false, message: 'You cannot create a tag with a prohibited pattern.' });
    expect(await decidePush(ctx({ changes: [change('refs/tags/HEAD')] }))).toEqual({ allowed: false, message: 'You cannot create a tag with a prohibited pattern.' });
    // Deleting any tag is fine.
    expect((await decidePush(ctx({ changes: [change('refs/tags/main', A, BLANK_SHA1)] }))).allowed).toBe(true);
  });

  it('is a seam: later policies (push rules) plug in, and the first refusal wins', async () => {
    const seen: string[] = [];
    const noWip: PushPolicy = (c) => {
      seen.push('noWip');
      return c.pushOptions.includes('wip') ? { allowed: false, message: 'No WIP pushes' } : { allowed: true };
    };
    const never: PushPolicy = async () => {
      seen.push('never');
      return { allowed: false, message: 'never' };
    };
    expect(await decidePush(ctx({ pushOptions: ['wip'] }), [noWip, never])).toEqual({ allowed: false, message: 'No WIP pushes' });
    expect(seen).toEqual(['noWip']);
  });
});
