import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab } from '@gitbeaker/rest';
import { Pool } from 'pg';
import { REPO_ROOT, startStack, type RunningStack } from '@glp/testing';

const run = promisify(execFile);
const PYTHON = path.join(REPO_ROOT, '.venv/bin/python');

/**
 * GitLab 18's delayed deletion on the default configuration, through real clients (@gitbeaker/rest, python-gitlab):
 * DELETE marks the project (renamed `<path>-deletion_scheduled-<id>`, archived, `marked_for_deletion_on` today), restore
 * takes it back, `permanently_remove` with the renamed full path deletes at once, and the purge removes a project
 * marked `deletion_adjourned_period` days ago, a setting administrators change through /application/settings.
 */
describe('GitLab 18 delayed project deletion through real clients', () => {
  let stack: RunningStack;
  let pool: Pool;
  let root: InstanceType<typeof Gitlab>;
  const today = () => new Date().toISOString().slice(0, 10);
  const status = (code: number) => ({ cause: { response: { status: code } } });
  const eventually = async (what: string, check: () => Promise<boolean>, ms = 15_000) => {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const exists = async (id: number) =>
    (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.projects}.projects WHERE id = $1`, [id])).rows[0].n === 1;
  const markedDaysAgo = (id: number, days: number) =>
    pool.query(`UPDATE ${stack.schemas.projects}.projects SET marked_for_deletion_on = current_date - $2::int WHERE id = $1`, [id, days]);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_deletion_clients', env: { PURGE_INTERVAL_MS: '200' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('Projects.remove marks the project; a second remove is refused; Projects.restore takes it back', async () => {
    const project = await root.Projects.create({ name: 'gb-doomed' });
    await root.Projects.remove(project.id);
    const marked = await root.Projects.show(project.id);
    expect(marked).toMatchObject({
      archived: true, marked_for_deletion_on: today(), marked_for_deletion_at: today(),
      name: `gb-doomed-deletion_scheduled-${project.id}`, path: `gb-doomed-deletion_scheduled-${project.id}`,
      path_with_namespace: `root/gb-doomed-deletion_scheduled-${project.id}`,
    });
    // The old path is free, and leads to the marked project meanwhile.
    await expect(root.Projects.show('root/gb-doomed')).resolves.toMatchObject({ id: project.id });
    await expect(root.Projects.remove(project.id)).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: 'Project has been already marked for deletion' },
    });

    await root.Projects.restore(project.id);
    await expect(root.Projects.show(project.id)).resolves.toMatchObject({
      archived: false, marked_for_deletion_on: null, marked_for_deletion_at: null, name: 'gb-doomed', path: 'gb-doomed',
    });
    await expect(root.Projects.restore(project.id)).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: 'Project has not been marked for deletion' },
    });
  });

  it('restores under a suffixed path when another project took the original meanwhile', async () => {
    const project = await root.Projects.create({ name: 'gb-taken' });
    await root.Projects.remove(project.id);
    const usurper = await root.Projects.create({ name: 'gb-taken' });
    expect(usurper.path_with_namespace).toBe('root/gb-taken');
    await root.Projects.restore(project.id);
    const back = await root.Projects.show(project.id);
    expect(back.path).toMatch(/^gb-taken-[A-Za-z0-9]{5}$/);
    expect(back.name).toBe(`gb-taken${(back.path as string).slice('gb-taken'.length)}`);
  });

  it('permanently_remove deletes a marked project at once, only with its full path as it is now', async () => {
    const project = await root.Projects.create({ name: 'gb-now' });
    await expect(root.Projects.remove(project.id, { permanentlyRemove: true, fullPath: 'root/gb-now' })).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: 'Project must be marked for deletion first.' },
    });
    await root.Projects.remove(project.id);
    await expect(root.Projects.remove(project.id, { permanentlyRemove: true, fullPath: 'root/gb-now' })).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: '`full_path` is incorrect. You must enter the complete path for the project.' },
    });
    expect(await exists(project.id)).toBe(true);
    await root.Projects.remove(project.id, { permanentlyRemove: true, fullPath: `root/gb-now-deletion_scheduled-${project.id}` });
    await expect(root.Projects.show(project.id)).rejects.toMatchObject(status(404));
    expect(await exists(project.id)).toBe(false);
  });

  it('deletion_adjourned_period: GitLab default 7, bounds 1..90, and the purge follows it', async () => {
    await expect(root.ApplicationSettings.show()).resolves.toMatchObject({ deletion_adjourned_period: 7 });
    await expect(root.ApplicationSettings.edit({ deletionAdjournedPeriod: 0 })).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: expect.stringContaining('must be greater than or equal to 1') },
    });
    await expect(root.ApplicationSettings.edit({ deletionAdjournedPeriod: 91 })).rejects.toMatchObject(status(400));
    await expect(root.ApplicationSettings.show()).resolves.toMatchObject({ deletion_adjourned_period: 7 });

    const project = await root.Projects.create({ name: 'gb-due' });
    await root.Projects.remove(project.id);
    await markedDaysAgo(project.id, 3);
    // Marked 3 days ago with a 7-day period: several purge rounds leave it alone.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await exists(project.id)).toBe(true);
    await expect(root.ApplicationSettings.edit({ deletionAdjournedPeriod: 3 })).resolves.toMatchObject({ deletion_adjourned_period: 3 });
    await eventually('purged once the period has passed', async () => !(await exists(project.id)));
    await expect(root.Projects.show(project.id)).rejects.toMatchObject(status(404));
    await root.ApplicationSettings.edit({ deletionAdjournedPeriod: 7 });
  });

  it('python-gitlab: project.delete() marks, project.restore() restores, settings carry deletion_adjourned_period', async () => {
    if (!existsSync(PYTHON)) throw new Error('.venv is missing: run deploy/local/python-clients.sh (npm test does)');
    let stdout: string;
    try {
      ({ stdout } = await run(PYTHON, [path.join(__dirname, 'python/python_gitlab_deletion.py')], {
        env: { ...process.env, GITLAB_URL: stack.url, GITLAB_TOKEN: stack.rootToken }, timeout: 60000,
      }));
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`python-gitlab script failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
    const out = JSON.parse(stdout);
    expect(out).toEqual({
      marked_path: expect.stringMatching(/^root\/py-doomed-deletion_scheduled-\d+$/),
      second_delete: [400, 'Project has been already marked for deletion'],
      restored: ['root/py-doomed', 'py-doomed', false, null],
      period: 7,
      period_91: [400, { deletion_adjourned_period: ['must be less than or equal to 90'] }],
      period_after: 30,
    });
    await root.ApplicationSettings.edit({ deletionAdjournedPeriod: 7 });
  });
});
