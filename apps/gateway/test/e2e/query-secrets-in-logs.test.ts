import { registerSecret, startStack, type RunningStack } from '@glp/testing';

/**
 * Secrets sent as query parameters never reach a log line: the access log (and any other line that prints a URL)
 * censors GitLab's filter_parameters by name (`password`, `*token`, `*secret*`, `import_url`, …) and any URL userinfo,
 * even inside a percent-encoded query value. Each secret is also registered for the suite's end-of-run search.
 */
describe('secrets in query strings', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_query_secrets', env: { LOG_LEVEL: 'debug', STACK_LOG_LEVEL: 'debug', ALLOW_LOCAL_WEBHOOKS: 'true', IMPORT_ALLOW_LOCAL_NETWORK: 'true' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('prints none of the passwords, tokens and URL credentials passed as query parameters', async () => {
    const secrets = {
      password: 'query-password-that-must-not-leak-51',
      importUrl: 'query-import-password-must-not-leak-52',
      hookToken: 'query-hook-token-that-must-not-leak-53',
      hookUrl: 'query-hook-url-password-must-not-leak-54',
      encoded: 'query-encoded-url-password-no-leak-55',
    };
    for (const [name, value] of Object.entries(secrets)) registerSecret(value, `query-secrets-in-logs ${name}`);
    const call = (method: string, path: string, query: string) =>
      fetch(`${stack.apiUrl}${path}?${query}`, { method, headers: { 'PRIVATE-TOKEN': stack.rootToken } });

    // A user's password, an import URL with credentials, as query parameters (GitLab takes params from the query too).
    const user = await call('POST', '/users', `username=querier&name=Querier&email=querier%40example.com&skip_confirmation=true&password=${secrets.password}`);
    expect(user.status).toBe(201);
    const project = await call('POST', '/projects', `name=query-import&import_url=${encodeURIComponent(`http://importer:${secrets.importUrl}@127.0.0.1:9/repo.git`)}`);
    expect([201, 400, 422]).toContain(project.status);
    const plain = await call('POST', '/projects', 'name=query-hooks');
    expect(plain.status).toBe(201);
    const { id } = (await plain.json()) as { id: number };
    // A hook's token, and a hook URL with credentials written raw in the query.
    const hook = await call('POST', `/projects/${id}/hooks`, `url=http://hookuser:${secrets.hookUrl}@127.0.0.1:9/hook&token=${secrets.hookToken}`);
    expect(hook.status).toBe(201);
    // A URL with credentials, percent-encoded twice, in a parameter whose name says nothing.
    const listed = await call('GET', '/projects', `search=x&note=${encodeURIComponent(encodeURIComponent(`https://u:${secrets.encoded}@example.com/r`))}`);
    expect(listed.status).toBe(200);

    await new Promise((r) => setTimeout(r, 500)); // late log lines
    const logs = stack.logs();
    // The control: these requests were logged, with their query strings censored.
    expect(logs).toContain('password=[REDACTED]');
    expect(logs).toContain('import_url=[REDACTED]');
    expect(logs).toContain('token=[REDACTED]');
    const leaks = Object.values(secrets).flatMap((s) => logs.split('\n').filter((line) => line.includes(s)).map((line) => `${s}: ${line.slice(0, 300)}`));
    expect(leaks).toEqual([]);
  });
});
