import { Webhook } from 'standardwebhooks';
import { eventually, startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';
import { apiOf, gitWorkspace, sleep, UUID } from './webhook-kit';

/**
 * Project hooks delivered end to end: a real `git push` through the gateway, repo-admin's Push event on Kafka, the
 * webhook-dispatcher's durable queue, and a receiver on 127.0.0.1 (allowed here by ALLOW_LOCAL_WEBHOOKS, as GitLab's
 * `allow_local_requests_from_web_hooks_and_services`) that checks GitLab's headers and the Standard Webhooks signature.
 * Then branch filters, the test endpoint, retries with one Idempotency-Key, the delivery log and its resend, and the
 * SSRF rules once the administrator turns local requests off.
 */
describe('webhook delivery', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let h: ReturnType<typeof apiOf>;

  const newProject = async (name: string) => h.post('/projects', { name, visibility: 'private' });
  const addHook = async (projectId: number, body: Record<string, unknown>) => h.post(`/projects/${projectId}/hooks`, body);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({
      name: 'e2e_webhooks',
      env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '1000', WEBHOOK_DISABLE_BASE_MS: '1000', WEBHOOK_POLL_MS: '200' },
    });
    h = apiOf(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('delivers a git push to the hook with GitLab headers, the push payload and a valid signature', async () => {
    const project = await newProject('hooked');
    const hook = await addHook(project.id, { url: `${receiver.url}/push`, token: 'hook-secret-1', push_events: true });
    expect(hook).toMatchObject({ url: `${receiver.url}/push`, push_events: true, tag_push_events: false, enable_ssl_verification: true, project_id: project.id });
    expect(JSON.stringify(hook)).not.toContain('hook-secret-1');

    const ws = await gitWorkspace(stack, project.path_with_namespace);
    const sha = await ws.commit('first commit\n\nwith a body');
    await ws.push('main');

    const [got] = await receiver.waitFor('/push', 1);
    const headers = got!.headers;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-gitlab-event']).toBe('Push Hook');
    expect(headers['x-gitlab-token']).toBe('hook-secret-1');
    expect(headers['x-gitlab-instance']).toBe(stack.url);
    expect(headers['user-agent']).toMatch(/^GitLab\/\d+\.\d+/);
    expect(headers['x-gitlab-webhook-uuid']).toMatch(UUID);
    expect(headers['x-gitlab-event-uuid']).toMatch(UUID);
    expect(headers['idempotency-key']).toMatch(UUID);
    expect(headers['webhook-id']).toBe(headers['idempotency-key']);
    expect(Number(headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
    // A receiver verifies the Standard Webhooks signature with the hook's token, and a tampered body fails.
    const std = { 'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']), 'webhook-signature': String(headers['webhook-signature']) };
    expect(() => new Webhook('hook-secret-1', { format: 'raw' }).verify(got!.body, std)).not.toThrow();
    expect(() => new Webhook('hook-secret-1', { format: 'raw' }).verify(got!.body.replace('first', 'forged'), std)).toThrow();
    expect(() => new Webhook('another-token', { format: 'raw' }).verify(got!.body, std)).toThrow();

    const payload = JSON.parse(got!.body);
    expect(payload).toMatchObject({
      object_kind: 'push', event_name: 'push', before: '0'.repeat(40), after: sha, ref: 'refs/heads/main', checkout_sha: sha,
      user_username: 'root', project_id: project.id, total_commits_count: 1,
      project: { id: project.id, path_with_namespace: project.path_with_namespace, name: 'hooked', default_branch: 'main' },
      repository: { name: 'hooked' },
    });
    expect(payload.commits).toHaveLength(1);
    expect(payload.commits[0]).toMatchObject({ id: sha, title: 'first commit', author: { name: 'Root Pusher', email: 'root@example.com' } });
    expect(payload.commits[0].message).toContain('with a body');
    expect(payload.commits[0].url).toContain(`/-/commit/${sha}`);

    // The delivery log (GitLab 17+): one 200 for push_hooks, with the token redacted from the request headers.
    await eventually(async () => (await h.get(`/projects/${project.id}/hooks/${hook.id}/events`)).length === 1);
    const [log] = await h.get(`/projects/${project.id}/hooks/${hook.id}/events`);
    expect(log).toMatchObject({ trigger: 'push_hooks', response_status: '200', url: `${receiver.url}/push` });
    expect(log.request_data).toMatchObject({ object_kind: 'push', after: sha });
    expect(JSON.stringify(log)).not.toContain('hook-secret-1');

    // A second push delivers once more, with a new Idempotency-Key.
    const second = await ws.commit('second');
    await ws.push('main');
    const both = await receiver.waitFor('/push', 2);
    expect(JSON.parse(both[1]!.body)).toMatchObject({ before: sha, after: second, total_commits_count: 1 });
    expect(both[1]!.headers['idempotency-key']).not.toBe(both[0]!.headers['idempotency-key']);
  });

  it('applies branch filters (wildcard, regex, all branches) to push events, never to tag pushes', async () => {
    const project = await newProject('filtered');
    await addHook(project.id, { url: `${receiver.url}/wild`, push_events_branch_filter: 'release/*' });
    await addHook(project.id, { url: `${receiver.url}/regex`, push_events_branch_filter: '^feat-[0-9]+$', branch_filter_strategy: 'regex' });
    const all = await addHook(project.id, { url: `${receiver.url}/all`, push_events_branch_filter: 'ignored', branch_filter_strategy: 'all_branches' });
    expect(all.push_events_branch_filter ?? null).toBeNull();
    await addHook(project.id, { url: `${receiver.url}/tags`, push_events: false, tag_push_events: true, push_events_branch_filter: 'release/*' });

    const ws = await gitWorkspace(stack, project.path_with_namespace);
    await ws.commit();
    for (const branch of ['main', 'release/1', 'feat-12', 'feat-x']) await ws.push(`HEAD:refs/heads/${branch}`);
    await ws.git('tag', 'v1.0');
    await ws.push('v1.0');

    const refs = (p: string) => receiver.at(p).map((r) => JSON.parse(r.body).ref);
    await receiver.waitFor('/all', 4);
    await receiver.waitFor('/tags', 1);
    await sleep(1000); // anything wrongly delivered would have arrived with the others
    expect(refs('/all').sort()).toEqual(['refs/heads/feat-12', 'refs/heads/feat-x', 'refs/heads/main', 'refs/heads/release/1']);
    expect(refs('/wild')).toEqual(['refs/heads/release/1']);
    expect(refs('/regex')).toEqual(['refs/heads/feat-12']);
    expect(refs('/tags')).toEqual(['refs/tags/v1.0']);
    expect(receiver.at('/tags')[0]!.headers['x-gitlab-event']).toBe('Tag Push Hook');
    expect(JSON.parse(receiver.at('/tags')[0]!.body)).toMatchObject({ object_kind: 'tag_push', event_name: 'tag_push' });
  });

  it('tests a hook as GitLab does: a sample push, the receiver failing, triggers without data, and the rate limit', async () => {
    const project = await newProject('tested');
    const ok = await addHook(project.id, { url: `${receiver.url}/test-ok` });
    // An empty repository: GitLab's fixed sample payload.
    expect(await h.post(`/projects/${project.id}/hooks/${ok.id}/test/push_events`, {})).toEqual({ message: '201 Created' });
    const [sample] = await receiver.waitFor('/test-ok', 1);
    expect(sample!.headers['x-gitlab-event']).toBe('Push Hook');
    expect(JSON.parse(sample!.body)).toMatchObject({ object_kind: 'push', project_id: project.id });

    // With commits: the newest three of the default branch.
    const ws = await gitWorkspace(stack, project.path_with_namespace);
    for (let i = 0; i < 4; i++) await ws.commit(`c${i}`);
    await ws.push('main');
    expect(await h.post(`/projects/${project.id}/hooks/${ok.id}/test/tag_push_events`, {})).toEqual({ message: '201 Created' });
    await eventually(async () => {
      const tagSample = receiver.at('/test-ok').find((r) => r.headers['x-gitlab-event'] === 'Tag Push Hook');
      return tagSample;
    });

    const failing = await addHook(project.id, { url: `${receiver.url}/test-fail` });
    receiver.respond('/test-fail', () => ({ status: 500, body: 'receiver exploded' }));
    expect(await h.post(`/projects/${project.id}/hooks/${failing.id}/test/push_events`, {}, 422)).toEqual({ message: 'receiver exploded' });
    expect(await h.post(`/projects/${project.id}/hooks/${failing.id}/test/issues_events`, {}, 422)).toEqual({ message: 'Ensure the project has issues.' });
    expect(await h.post(`/projects/${project.id}/hooks/${failing.id}/test/not_a_trigger`, {}, 400)).toEqual({ error: 'trigger does not have a valid value' });

    // 5 tests per minute per project and user (GitLab's web_hook_test limit): four ran above (the invalid trigger is
    // refused by param validation before the limit), so the fifth passes and the sixth is refused.
    expect((await h.api(`/projects/${project.id}/hooks/${ok.id}/test/push_events`, { method: 'POST' })).status).toBe(201);
    const limited = await h.api(`/projects/${project.id}/hooks/${ok.id}/test/push_events`, { method: 'POST' });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
  });

  it('retries a failing receiver with backoff: 500 three times, then 200, all with one Idempotency-Key, and resends from the log', async () => {
    const project = await newProject('flaky');
    receiver.respond('/flaky', ({ nth }) => (nth <= 3 ? { status: 500, body: `fail ${nth}` } : 200));
    const hook = await addHook(project.id, { url: `${receiver.url}/flaky`, token: 'flaky-token' });
    const ws = await gitWorkspace(stack, project.path_with_namespace);
    await ws.commit();
    await ws.push('main');

    const attempts = await receiver.waitFor('/flaky', 4, 30_000);
    await sleep(1500); // a fifth request would be a duplicate
    expect(receiver.at('/flaky').map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(attempts.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(attempts.map((r) => r.headers['x-gitlab-event-uuid'])).size).toBe(1);
    expect(new Set(attempts.map((r) => r.headers['x-gitlab-webhook-uuid'])).size).toBe(4);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    // Three failures are within GitLab's grace: the hook stays executable.
    expect(await h.get(`/projects/${project.id}/hooks/${hook.id}`)).toMatchObject({ alert_status: 'executable', disabled_until: null });

    const logs: { id: number; response_status: string }[] = await h.get(`/projects/${project.id}/hooks/${hook.id}/events`);
    expect(logs.map((l) => l.response_status).sort()).toEqual(['200', '500', '500', '500']);
    expect((await h.get(`/projects/${project.id}/hooks/${hook.id}/events?status=server_failure`)).length).toBe(3);
    expect((await h.get(`/projects/${project.id}/hooks/${hook.id}/events?status=successful`)).length).toBe(1);

    // Resend a logged delivery: same Idempotency-Key, answered with the receiver's status.
    const failed = logs.find((l) => l.response_status === '500')!;
    expect(await h.post(`/projects/${project.id}/hooks/${hook.id}/events/${failed.id}/resend`, {})).toEqual({ response_status: 200 });
    const resent = await receiver.waitFor('/flaky', 5);
    expect(resent[4]!.headers['idempotency-key']).toBe(attempts[0]!.headers['idempotency-key']);
    await h.post(`/projects/${project.id}/hooks/${hook.id}/events/999999999/resend`, {}, 404);
  });

  it('refuses local and private targets once the administrator turns local requests off (at save and at send time)', async () => {
    const project = await newProject('guarded');
    const local = await startWebhookReceiver();
    const target = await startWebhookReceiver();
    try {
      // Saved while local requests are allowed.
      const localHook = await addHook(project.id, { url: `${local.url}/ssrf-send` });
      receiver.respond('/redirect', () => ({ status: 302, headers: { Location: `${target.url}/stolen` } }));
      await h.put('/application/settings', { allow_local_requests_from_web_hooks_and_services: false, outbound_local_requests_allowlist: [`127.0.0.1:${receiver.port}`] });
      // The allowlisted receiver may be saved; the redirect it answers points at a port that is not allowed.
      const redirecting = await addHook(project.id, { url: `${receiver.url}/redirect` });

      for (const url of [`${target.url}/x`, 'http://localhost/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/x', 'http://100.64.0.1/', 'http://0.0.0.0/', 'ftp://example.com/x']) {
        expect([url, await h.post(`/projects/${project.id}/hooks`, { url }, 422)]).toEqual([url, { error: 'Invalid url given' }]);
      }
      expect(await h.put(`/projects/${project.id}/hooks/${localHook.id}`, { url: 'http://127.0.0.2/' }, 422)).toEqual({ error: 'Invalid url given' });

      // Checked again when sending: the hook saved earlier is refused at connect time, and so is the redirect hop.
      await sleep(500); // the dispatcher learns the setting from identity's event
      const ws = await gitWorkspace(stack, project.path_with_namespace);
      await ws.commit();
      await ws.push('main');
      await eventually(async () => {
        const [log] = await h.get(`/projects/${project.id}/hooks/${localHook.id}/events`);
        expect(log).toMatchObject({ response_status: 'internal error' });
        expect(log.response_body).toMatch(/Requests to (loopback addresses|localhost) are not allowed/);
        return true;
      }, 20_000);
      await receiver.waitFor('/redirect', 1, 20_000);
      await eventually(async () => (await h.get(`/projects/${project.id}/hooks/${redirecting.id}/events`)).length > 0, 20_000);
      const [redirectLog] = await h.get(`/projects/${project.id}/hooks/${redirecting.id}/events`);
      expect(redirectLog.response_status).not.toBe('200');
      expect(local.received).toHaveLength(0);
      expect(target.received).toHaveLength(0);
    } finally {
      await h.put('/application/settings', { allow_local_requests_from_web_hooks_and_services: true, outbound_local_requests_allowlist: [] });
      await local.close();
      await target.close();
    }
  });
});
