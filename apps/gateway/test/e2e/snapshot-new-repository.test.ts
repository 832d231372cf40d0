import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/** The bytes as a bare repository on disk (tar extracts them), and what git reads there. */
function extracted(bytes: Buffer): { dir: string; branches: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glp-snap-'));
  writeFileSync(`${dir}.tar`, bytes);
  execFileSync('tar', ['-xf', `${dir}.tar`, '-C', dir]);
  rmSync(`${dir}.tar`);
  const branches = execFileSync('git', ['--git-dir', dir, 'for-each-ref', '--format=%(refname)', 'refs/heads/'], { encoding: 'utf8' }).trim();
  return { dir, branches };
}

/**
 * GET /projects/:id/snapshot of a project created a moment before (its repository still being created from
 * ProjectCreated, or empty): a valid tar of the repository, never an empty body, through python-gitlab's
 * `project.snapshot()` and @gitbeaker/rest's `Projects.downloadSnapshot`.
 */
describe('snapshots of new and empty repositories', () => {
  let stack: RunningStack;
  beforeAll(async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    stack = await startStack({ name: 'e2e_snapshot_new' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('python-gitlab: project.snapshot() right after create is a tar of the repository (empty, or with the README)', async () => {
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [path.join(__dirname, 'python/python_gitlab_snapshot.py')], {
        env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken }, timeout: 120_000,
      }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    const got = JSON.parse(stdout) as Record<string, { id: number; members: string[] }>;
    for (const name of ['py-snap-empty', 'py-snap-empty-2']) {
      expect(got[name]!.members).toEqual(expect.arrayContaining(['HEAD', 'objects', 'refs', 'refs/heads', 'refs/tags']));
      expect(got[name]!.members).not.toContain('config');
    }
    expect(got['py-snap-readme']!.members).toEqual(expect.arrayContaining(['HEAD', 'objects', 'refs']));
  });

  it('@gitbeaker/rest: Projects.downloadSnapshot right after create is a tar git reads as the bare repository', async () => {
    const api = new Gitlab({ host: stack.url, token: stack.rootToken });
    for (const readme of [false, true]) {
      const project = await api.Projects.create({ name: `gb-snap-${readme}`, initializeWithReadme: readme });
      const blob = await api.Projects.downloadSnapshot(project.id) as unknown as Blob;
      const bytes = Buffer.from(await blob.arrayBuffer());
      expect(bytes.length).toBeGreaterThan(0);
      const { dir, branches } = extracted(bytes);
      try {
        expect(existsSync(path.join(dir, 'HEAD'))).toBe(true);
        // The README commit may land a moment after the repository exists; an empty repository has no branch.
        expect(['', 'refs/heads/main']).toContain(branches);
        if (!readme) expect(branches).toBe('');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
