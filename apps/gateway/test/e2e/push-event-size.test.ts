import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';
import { apiOf, gitWorkspace } from './webhook-kit';

/**
 * A push the broker could not take whole must not stop a service's events: a commit with a 3 MB message is pushed, then
 * an ordinary commit; both pushes reach the project's hook, the first with its message cut to the bounded size.
 */
describe('an oversized push event', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let h: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_push_size', env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_POLL_MS: '200' } });
    h = apiOf(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('delivers the push of a 3 MB commit message (cut) and the ordinary push after it', async () => {
    const project = await h.post('/projects', { name: 'huge-message', visibility: 'private' });
    await h.post(`/projects/${project.id}/hooks`, { url: `${receiver.url}/push`, push_events: true });
    const ws = await gitWorkspace(stack, project.path_with_namespace);

    // Too long for an argument: the message comes from a file.
    const message = `huge commit\n\n${'0123456789abcdef'.repeat(3 * 1024 * 1024 / 16)}`;
    writeFileSync(path.join(ws.dir, 'message.txt'), message);
    writeFileSync(path.join(ws.dir, 'a.txt'), 'a');
    await ws.git('add', 'a.txt');
    await ws.git('commit', '-q', '-F', 'message.txt');
    const hugeSha = await ws.git('rev-parse', 'HEAD');
    await ws.push('main');

    const second = await ws.commit('ordinary commit');
    await ws.push('main');

    const got = await receiver.waitFor('/push', 2, 60000);
    const payloads = got.map((g) => JSON.parse(g.body));
    const ordinary = payloads.find((p) => p.after === second);
    expect(ordinary).toMatchObject({ object_kind: 'push', total_commits_count: 1, commits: [{ id: second, title: 'ordinary commit' }] });

    const huge = payloads.find((p) => p.after === hugeSha);
    expect(huge).toMatchObject({ object_kind: 'push', total_commits_count: 1, commits: [{ id: hugeSha, title: 'huge commit' }] });
    // GitLab's form of a message too big to carry: the subject and a marker.
    expect(huge.commits[0].message).toBe('huge commit\n\n--commit message is too big');
    expect(got.every((g) => Buffer.byteLength(g.body) < 64 * 1024)).toBe(true);
  }, 150_000);
});
