import { spawn } from 'node:child_process';
import { BASE_ENV, GitError, type GitOptions } from './git';

/**
 * Runs the git CLI like `runGit` (no shell, arguments as they are, the same environment, a timeout) but hands its stdout
 * over record by record (split on `separator`) instead of collecting it: for listings that may be as large as the
 * repository (`ls-tree -r`). Resolves when git exited successfully and every record was handled.
 */
export function forEachGitRecord(
  gitBin: string, args: readonly string[], opts: Pick<GitOptions, 'dir' | 'timeoutMs' | 'env' | 'input'>, separator: number, onRecord: (record: Buffer) => void,
): Promise<void> {
  const fullArgs = opts.dir ? ['-C', opts.dir, ...args] : [...args];
  return new Promise((resolve, reject) => {
    const child = spawn(gitBin, fullArgs, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined); // a command that exits early closes its stdin
    child.stdin.end(opts.input ?? '');
    let rest: Buffer = Buffer.alloc(0);
    let err = '';
    let failure: Error | undefined;
    const fail = (e: Error) => {
      failure ??= e;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new GitError(args, null, `timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      if (failure) return;
      let buf = rest.length ? Buffer.concat([rest, b]) : b;
      try {
        for (let at = buf.indexOf(separator); at >= 0; at = buf.indexOf(separator)) {
          onRecord(buf.subarray(0, at));
          buf = buf.subarray(at + 1);
        }
      } catch (e) {
        fail(e instanceof Error ? e : new Error(String(e)));
      }
      // A record never grows without bound: a path is at most a few KiB.
      if (buf.length > 1024 * 1024) fail(new GitError(args, null, 'record beyond 1 MiB'));
      rest = Buffer.from(buf);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 64 * 1024) err += b.toString();
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (code !== 0) return reject(new GitError(args, code, err));
      try {
        if (rest.length) onRecord(rest);
      } catch (e) {
        return reject(e);
      }
      resolve();
    });
  });
}
