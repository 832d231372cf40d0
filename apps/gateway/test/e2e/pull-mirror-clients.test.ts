import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { registerSecret, REPO_ROOT, serveDirectory, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');
const ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Up', GIT_AUTHOR_EMAIL: 'up@e', GIT_COMMITTER_NAME: 'Up', GIT_COMMITTER_EMAIL: 'up@e' };
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: ENV }).trim();
const hashed = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};

/**
 * The pull mirroring API as real clients drive it (`ee/lib/api/project_mirror.rb`): python-gitlab's
 * `project.pull_mirror` configures (PUT, with credentials for a private upstream), reads (GET) and starts (POST) a
 * mirror, and meets GitLab's refusals; @gitbeaker/rest reads and starts it. The upstream is a bare repository over
 * dumb HTTP on 127.0.0.1 that wants basic auth (allowed by the outbound allowlist for its port only).
 */
describe('pull mirroring API through python-gitlab and @gitbeaker/rest', () => {
  let stack: RunningStack;
  let server: { port: number; close(): void };
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-mirror-api-'));
  const upstream = path.join(root, 'private', 'upstream.git');
  const auth = { user: 'mirror-bot', password: `up-${Math.random().toString(36).slice(2)}-secret` };
  let head = '';

  beforeAll(async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    registerSecret(auth.password, 'pull mirror auth_password');
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work], { env: ENV });
    git(work, 'commit', '-q', '--allow-empty', '-m', 'upstream first');
    head = git(work, 'rev-parse', 'HEAD');
    execFileSync('git', ['clone', '-q', '--bare', work, upstream], { env: ENV });
    git(upstream, 'update-server-info');
    server = await serveDirectory(root, undefined, { basicAuth: auth });
    stack = await startStack({ name: 'e2e_mirror_api', env: { IMPORT_URL_ALLOWLIST: `127.0.0.1:${server.port}`, MIRROR_POLL_MS: '200' } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('configures, reads and starts a pull mirror with python-gitlab, with GitLab’s answers and refusals', async () => {
    const script = path.join(__dirname, 'python/python_gitlab_pull_mirror.py');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [script], {
        env: {
          ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken,
          UPSTREAM_URL: `http://127.0.0.1:${server.port}/private/upstream.git`, UPSTREAM_USER: auth.user, UPSTREAM_PASSWORD: auth.password,
          BLOCKED_URL: 'http://127.0.0.1:1/elsewhere.git', NOT_GIT_URL: `http://127.0.0.1:${server.port}/nothing-here.git`,
        },
        timeout: 180_000,
      }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    const summary = JSON.parse(stdout);
    expect(summary.errors).toEqual({
      regex: { 'project_setting.mirror_branch_regex': [expect.stringMatching(/^not valid RE2 syntax: /)] },
      blocked: { import_url: [expect.stringMatching(/^is blocked: /)] },
      not_git: { import_url: ['Unable to access repository with the URL and credentials provided'] },
      none: 'enabled, url, auth_user, auth_password, mirror_overwrites_diverged_branches, mirror_trigger_builds, only_mirror_protected_branches, mirror_branch_regex are missing, at least one parameter must be provided',
      get_plain: 'The project is not mirrored',
      start_plain: 'The project is not mirrored',
      url_missing: { url: ['is missing'] },
      enable_without_url: { import_url: ["can't be blank"] },
    });
    // The mirror fetched the private upstream with the credentials given to PUT /mirror/pull.
    expect(git(path.join(stack.storageRoot, hashed(summary.mirrored)), 'rev-parse', 'refs/heads/main')).toBe(head);

    // @gitbeaker/rest reads the same mirror (GET) and starts it (POST; its createPullMirror posts there).
    const api = new Gitlab({ host: stack.url, token: stack.rootToken });
    const shown = await api.Projects.showPullMirror(summary.mirrored) as unknown as Record<string, unknown>;
    expect(shown).toMatchObject({ enabled: true, url: `http://127.0.0.1:${server.port}/private/upstream.git`, mirror_trigger_builds: false, only_mirror_protected_branches: true, mirror_branch_regex: null });
    await api.Projects.createPullMirror(summary.mirrored, `http://127.0.0.1:${server.port}/private/upstream.git`, true);
    const plain = await api.Projects.create({ name: 'gb-not-mirrored' });
    await expect(api.Projects.showPullMirror(plain.id)).rejects.toMatchObject({ cause: { response: { status: 400 } } });
    await expect(api.Projects.createPullMirror(plain.id, `http://127.0.0.1:${server.port}/private/upstream.git`, true)).rejects.toMatchObject({ cause: { response: { status: 400 } } });
  }, 240_000);
});
