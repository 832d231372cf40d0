import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { initBareRepository } from './bare-init';

const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

describe('initBareRepository', () => {
  let root: string;
  beforeEach(async () => { root = await mkdtemp(path.join(os.tmpdir(), 'bare-init-')); });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('makes an empty bare repository git opens, with HEAD on the branch, that takes a push', async () => {
    const dir = path.join(root, '@hashed', 'ab', 'cd', 'abcd.git');
    await expect(initBareRepository(dir, 'develop')).resolves.toBe(true);
    expect(git(['-C', dir, 'rev-parse', '--is-bare-repository'])).toBe('true');
    expect(git(['-C', dir, 'symbolic-ref', 'HEAD'])).toBe('refs/heads/develop');
    expect(git(['-C', dir, 'for-each-ref'])).toBe('');
    git(['-C', dir, 'fsck', '--strict']);

    const work = path.join(root, 'work');
    git(['init', '-q', '--initial-branch=develop', work]);
    await writeFile(path.join(work, 'a.txt'), 'a\n');
    git(['add', 'a.txt'], work);
    git(['-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'first'], work);
    git(['push', '-q', dir, 'develop'], work);
    expect(git(['-C', dir, 'log', '--format=%s', 'develop'])).toBe('first');
    // Only the repository is left next to it: the directory it was built in is gone.
    expect(await readdir(path.dirname(dir))).toEqual(['abcd.git']);
  });

  it('leaves a repository that is already there as it is', async () => {
    const dir = path.join(root, 'r.git');
    await initBareRepository(dir, 'main');
    await expect(initBareRepository(dir, 'other')).resolves.toBe(false);
    expect(await readFile(path.join(dir, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });

  it('replaces a directory that is not a repository (what an interrupted create could leave)', async () => {
    const dir = path.join(root, 'r.git');
    await mkdir(path.join(dir, 'objects'), { recursive: true });
    await expect(initBareRepository(dir, 'main')).resolves.toBe(true);
    expect(git(['-C', dir, 'symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
  });

  it.each(['', 'a b', 'x\nref: refs/heads/evil', '../x', 'x.lock', '-x', 'a..b'])('refuses the branch name %j and writes nothing', async (branch) => {
    const dir = path.join(root, 'r.git');
    await expect(initBareRepository(dir, branch)).rejects.toThrow(/invalid initial branch name/);
    expect(await readdir(root)).toEqual([]);
  });
});
