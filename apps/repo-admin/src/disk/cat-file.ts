import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BASE_ENV, GitError } from './git';

/** One answer of `git cat-file --batch` / `--batch-check`: undefined when the object is missing. */
export interface CatFileObject {
  oid: string;
  type: string;
  size: number;
  /** The object's bytes (`--batch` only). */
  content?: Buffer;
}

interface Pending {
  resolve(o: CatFileObject | undefined): void;
  reject(e: Error): void;
}

/**
 * One long-lived `git cat-file --batch` (objects with their contents) or `--batch-check` (type and size only) process:
 * object ids are written to its stdin, one a line, and the answers are read back in the same order, so any number of
 * lookups cost one process. Run without a shell, in the given environment (the push's quarantine), killed after
 * `timeoutMs` in all or on `close()`. Each object is bounded by `maxObjectBytes` (beyond: an error, the process is
 * killed), so a lookup never holds more than one object's bytes plus what is pending.
 */
export class CatFileProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly queue: Pending[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private failure: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private stderr = '';
  private readonly maxObjectBytes: number;

  constructor(
    gitBin: string,
    dir: string,
    private readonly mode: 'batch' | 'batch-check',
    opts: { env?: Record<string, string>; timeoutMs: number; maxObjectBytes?: number },
  ) {
    const args = ['-C', dir, 'cat-file', `--${mode}`];
    this.maxObjectBytes = opts.maxObjectBytes ?? 64 * 1024 * 1024;
    this.child = spawn(gitBin, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.timer = setTimeout(() => this.fail(new GitError(['cat-file'], null, `timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    this.child.stdout.on('data', (b: Buffer) => this.onData(b));
    this.child.stderr.on('data', (b: Buffer) => {
      if (this.stderr.length < 16 * 1024) this.stderr += b.toString();
    });
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', (e) => this.fail(e));
    this.child.on('close', (code) => {
      clearTimeout(this.timer);
      if (this.queue.length) this.fail(new GitError(['cat-file'], code, this.stderr || 'exited with lookups pending'));
    });
  }

  /** Looks an object id up (never user text: ids come from git itself). */
  get(oid: string): Promise<CatFileObject | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    if (!/^[0-9a-f]{40,64}$/.test(oid)) return Promise.reject(new Error(`not an object id: ${oid.slice(0, 80)}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.child.stdin.write(`${oid}\n`);
    });
  }

  /** Ends the process (pending lookups fail). */
  close(): void {
    clearTimeout(this.timer);
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    this.failAll(new Error('cat-file closed'));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    clearTimeout(this.timer);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    this.failAll(this.failure);
  }

  private failAll(e: Error): void {
    for (const p of this.queue.splice(0)) p.reject(e);
  }

  private onData(chunk: Buffer): void {
    if (this.failure) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    try {
      while (this.queue.length) {
        const nl = this.buf.indexOf(0x0a);
        if (nl < 0) {
          if (this.buf.length > 4096) throw new GitError(['cat-file'], null, 'header line too long');
          return;
        }
        const header = this.buf.subarray(0, nl).toString('utf8');
        const parts = header.split(' ');
        if (parts[1] === 'missing' || parts.length < 3) {
          this.buf = this.buf.subarray(nl + 1);
          this.queue.shift()!.resolve(undefined);
          continue;
        }
        const size = Number(parts[2]);
        if (!Number.isSafeInteger(size) || size < 0) throw new GitError(['cat-file'], null, `bad header ${header.slice(0, 100)}`);
        if (this.mode === 'batch-check') {
          this.buf = this.buf.subarray(nl + 1);
          this.queue.shift()!.resolve({ oid: parts[0]!, type: parts[1]!, size });
          continue;
        }
        if (size > this.maxObjectBytes) throw new GitError(['cat-file'], null, `object ${parts[0]} beyond ${this.maxObjectBytes} bytes`);
        // Header, content, then a LF.
        if (this.buf.length < nl + 1 + size + 1) return;
        const content = Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size));
        this.buf = this.buf.subarray(nl + 1 + size + 1);
        this.queue.shift()!.resolve({ oid: parts[0]!, type: parts[1]!, size, content });
      }
      if (this.buf.length) throw new GitError(['cat-file'], null, 'output without a lookup');
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
