import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';
import { apiOf, gitWorkspace } from './webhook-kit';

/**
 * Secrets never reach a log line: a stack at LOG_LEVEL=debug (every service as talkative as it gets) runs a workload
 * that hands it every kind of secret the API takes — the root token in a header, a user's password and personal access
 * token (header, `private_token` query, HTTP Basic for git), a hook token and a token inside a hook URL, credentials
 * inside an import URL, a bad token — and then every line every service printed is searched for each of them.
 */
describe('secrets in logs', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  const secrets: string[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_secret_logs', env: { LOG_LEVEL: 'debug', STACK_LOG_LEVEL: 'debug', ALLOW_LOCAL_WEBHOOKS: 'true', IMPORT_ALLOW_LOCAL_NETWORK: 'true' } });
    secrets.push(stack.rootToken);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('prints none of the tokens and passwords it was given', async () => {
    const h = apiOf(stack);
    const password = 'Sup3r-secret-passw0rd-e2e';
    const user = await h.post('/users', { username: 'leaky', name: 'Leaky', email: 'leaky@example.com', password, skip_confirmation: true });
    const pat = (await h.post(`/users/${user.id}/personal_access_tokens`, { name: 'logs', scopes: ['api'] })).token as string;
    secrets.push(password, pat);

    // The token in a header, in the private_token query parameter and in a form body; a wrong token too.
    expect((await fetch(`${stack.apiUrl}/user`, { headers: { 'PRIVATE-TOKEN': pat } })).status).toBe(200);
    expect((await fetch(`${stack.apiUrl}/user?private_token=${pat}`)).status).toBe(200);
    const wrongToken = 'glpat-not-a-real-token-0123456789';
    secrets.push(wrongToken);
    expect((await fetch(`${stack.apiUrl}/user`, { headers: { 'PRIVATE-TOKEN': wrongToken } })).status).toBe(401);
    const form = await fetch(`${stack.apiUrl}/projects`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `name=leaky-form&private_token=${pat}` });
    expect(form.status).toBe(201);

    // Hook tokens: the token field and a token inside the URL; a delivery and a test send them.
    const project = await h.post('/projects', { name: 'leaky-project' }, 201, pat);
    const hookToken = 'hook-token-that-must-not-leak-42';
    const urlSecret = 'url-password-that-must-not-leak-43';
    secrets.push(hookToken, urlSecret);
    const hook = await h.post(`/projects/${project.id}/hooks`, { url: `http://hookuser:${urlSecret}@127.0.0.1:${receiver.port}/leak`, token: hookToken }, 201, pat);
    await h.post(`/projects/${project.id}/hooks/${hook.id}/test/push_events`, {}, 201, pat);
    await receiver.waitFor('/leak', 1);
    expect(receiver.at('/leak')[0]!.headers['x-gitlab-token']).toBe(hookToken);

    // git over HTTP with the token as the Basic password, and a push that fires the hook.
    const ws = await gitWorkspace(stack, project.path_with_namespace);
    await ws.commit('leak check');
    await ws.push('main');
    await receiver.waitFor('/leak', 2);

    // Credentials inside an import URL (refused or accepted, they must not be printed).
    const importSecret = 'import-password-that-must-not-leak-44';
    secrets.push(importSecret);
    await h.api('/projects', { method: 'POST', body: JSON.stringify({ name: 'leaky-import', import_url: `http://importer:${importSecret}@127.0.0.1:9/repo.git` }), token: pat });

    await new Promise((r) => setTimeout(r, 1000)); // late log lines (deliveries, jobs)
    const logs = stack.logs();
    // The control: the requests were logged (the gateway's access log), with the query token redacted.
    expect(logs).toContain('private_token=[REDACTED]');
    const leaks = secrets.flatMap((s) => logs.split('\n').filter((line) => line.includes(s)).map((line) => `${s.slice(0, 12)}…: ${line.slice(0, 300)}`));
    console.log(`secrets in logs: ${secrets.length} secrets searched in ${logs.split('\n').length} log lines, ${leaks.length} found`);
    expect(leaks).toEqual([]);
  });
});
