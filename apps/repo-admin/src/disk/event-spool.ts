import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from './durable-fs';

const SUFFIX = '.json';

/**
 * A directory of JSON records kept in the order they were appended, each written durably (temporary file, fsync,
 * rename, fsync of the directory) before `append` resolves, so it outlives a crash of the process or the machine.
 */
export class EventSpool {
  private seq = 0;

  constructor(readonly dir: string) {}

  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Names of the records waiting, oldest first. */
  async list(): Promise<string[]> {
    return (await readdir(this.dir)).filter((n) => n.endsWith(SUFFIX)).sort();
  }

  async append(record: unknown): Promise<string> {
    // Sortable: milliseconds, then this process's counter; the random part keeps two processes' names apart.
    const name = `${String(Date.now()).padStart(15, '0')}-${String(this.seq++).padStart(9, '0')}-${randomBytes(4).toString('hex')}${SUFFIX}`;
    const tmp = path.join(this.dir, `.${name}.tmp`);
    const file = await open(tmp, 'wx', 0o600);
    try {
      await file.writeFile(JSON.stringify(record));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path.join(this.dir, name));
    await syncDir(this.dir);
    return name;
  }

  async read(name: string): Promise<unknown> {
    return JSON.parse(await readFile(path.join(this.dir, name), 'utf8'));
  }

  async remove(name: string): Promise<void> {
    await rm(path.join(this.dir, name), { force: true });
  }

  /** Moves a record that cannot be read aside (`<name>.bad`), where no drain looks again. */
  async quarantine(name: string): Promise<void> {
    await rename(path.join(this.dir, name), path.join(this.dir, `${name}.bad`));
  }

}
