import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/** python-gitlab (pip) as a real client: create, read by id/path, paginate, errors, users and tokens. */
describe('python-gitlab', () => {
  let stack: RunningStack;
  beforeAll(async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    stack = await startStack({ name: 'e2e_python', env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('drives the API through python-gitlab', async () => {
    const script = path.join(__dirname, 'python/python_gitlab_smoke.py');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [script], { env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken, HOOK_URL: 'http://127.0.0.1:9/py-hook' }, timeout: 60000 }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    expect(JSON.parse(stdout)).toEqual({ user: 'root', version: expect.stringMatching(/^\d+\.\d+\.\d+$/), created: expect.any(Number), total: 3, user_project: 'py-user/mine', fork: 'root/py-demo-fork', hooks: 'ok', push_rules: 'ok' });
  });
});
