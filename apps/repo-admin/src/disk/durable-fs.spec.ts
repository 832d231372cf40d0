import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdirDurable, syncDir, syncFile } from './durable-fs';

describe('durable-fs', () => {
  let root: string;
  beforeEach(async () => { root = await mkdtemp(path.join(os.tmpdir(), 'durable-fs-')); });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('mkdirDurable creates every missing level and answers the directory', async () => {
    const dir = path.join(root, 'a', 'b', 'c');
    await expect(mkdirDurable(dir)).resolves.toBe(dir);
    expect((await stat(dir)).isDirectory()).toBe(true);
    await expect(mkdirDurable(dir)).resolves.toBe(dir); // already there: nothing to create
  });

  it('syncFile and syncDir flush an existing file and directory, and fail on a missing one', async () => {
    const file = path.join(root, 'f');
    await writeFile(file, 'x');
    await expect(syncFile(file)).resolves.toBeUndefined();
    await expect(syncDir(root)).resolves.toBeUndefined();
    await expect(syncFile(path.join(root, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
