import { spawn, type ChildProcess } from 'node:child_process';

export interface GitOptions {
  /** Run inside this repository (`git -C <dir>`). */
  dir?: string;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  env?: Record<string, string>;
  timeoutMs: number;
  /** Stdout beyond this many bytes is an error (the command is killed). Default 16 MiB. */
  maxOutputBytes?: number;
  /** Kills the command when aborted (a repository job's time limit). */
  signal?: AbortSignal;
}

export class GitError extends Error {
  constructor(readonly args: readonly string[], readonly code: number | null, readonly stderr: string) {
    super(`git ${args[0] ?? ''} failed (${code === null ? 'killed' : `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'GitError';
  }
}

/**
 * Git's durability for what a repository holds (`core.fsync`): objects, packs, refs and their derived metadata are
 * fsynced before a command that wrote them ends, so a push acknowledged to its client outlives a machine crash. Git's
 * default leaves loose objects and refs in the page cache. Passed in the environment so that every git process
 * repo-admin starts (and the ones git starts in turn) has it, whatever the repository's own config says.
 */
const DURABILITY_CONFIG = "'core.fsync=committed,derived-metadata' 'core.fsyncmethod=fsync'";

/** The environment every git command gets: no prompts, no system or user configuration, no pager, durable writes. */
export const BASE_ENV: Record<string, string> = {
  GIT_CONFIG_PARAMETERS: DURABILITY_CONFIG,
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_PAGER: 'cat',
  LC_ALL: 'C',
};

/**
 * Kills a git command with the helpers it started (`git fetch` runs `git-remote-https`, `index-pack`…, which would
 * otherwise keep a trickling connection open): each command leads its own process group.
 */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Runs the git CLI without a shell (arguments are passed as they are: nothing is ever interpolated into a command line),
 * with a timeout (or an abort signal) after which it is killed, and a bound on what it may print. Resolves with stdout.
 */
export function runGit(gitBin: string, args: readonly string[], opts: GitOptions): Promise<Buffer> {
  const fullArgs = opts.dir ? ['-C', opts.dir, ...args] : [...args];
  const max = opts.maxOutputBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitError(args, null, 'stopped before it started'));
      return;
    }
    const child = spawn(gitBin, fullArgs, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: Error | undefined;
    const timer = setTimeout(() => {
      failure = new GitError(args, null, `timed out after ${opts.timeoutMs} ms`);
      killGroup(child);
    }, opts.timeoutMs);
    const onAbort = () => {
      failure ??= new GitError(args, null, 'stopped');
      killGroup(child);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > max) {
        failure ??= new GitError(args, null, `output beyond ${max} bytes`);
        killGroup(child);
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 64 * 1024) err += b.toString();
    });
    child.on('error', (e) => {
      settle();
      reject(e);
    });
    child.on('close', (code) => {
      settle();
      if (failure) reject(failure);
      else if (code !== 0) reject(new GitError(args, code, err));
      else resolve(Buffer.concat(out));
    });
    child.stdin.on('error', () => undefined); // a command that exits early closes its stdin
    child.stdin.end(opts.input ?? '');
  });
}
