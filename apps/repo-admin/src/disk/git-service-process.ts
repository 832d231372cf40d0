import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { GitService } from '../domain/git-http-rules';
import type { GitRunner } from './bare-repository';
import { BASE_ENV } from './git';

export interface GitServiceRun {
  service: GitService;
  /** Absolute path of the bare repository. */
  repoDir: string;
  /** `--advertise-refs` (the info/refs answer) instead of reading a request. */
  advertise: boolean;
  /** `-c key=value` settings for this run only. */
  config: readonly string[];
  env: Record<string, string>;
  /** The request body (already decoded), or nothing for the advertisement. */
  input?: Readable;
  output: Writable;
  timeoutMs: number;
  /** Stop git when `output` closes before it finished (a client that went away). Not for pushes: hooks must finish. */
  killOnOutputClose: boolean;
  /** Called once, before git's first bytes reach `output` (the caller's status and headers). */
  onFirstOutput?: () => void;
}

export interface GitServiceResult {
  code: number | null;
  /** The last bytes git wrote to stderr (diagnostics for logs; never sent to anyone). */
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs `git upload-pack` / `git receive-pack --stateless-rpc` on a repository without a shell (arguments passed as they
 * are; the directory is the project's hashed path, never user input), streaming `input` into git and git's stdout into
 * `output` with backpressure: nothing is held in memory beyond the pipes' buffers. Killed after `timeoutMs`.
 */
export function runGitService(git: GitRunner, run: GitServiceRun): Promise<GitServiceResult> {
  const args = [
    ...run.config.flatMap((c) => ['-c', c]),
    run.service.slice('git-'.length),
    '--stateless-rpc',
    ...(run.advertise ? ['--advertise-refs'] : []),
    run.repoDir,
  ];
  return new Promise((resolve) => {
    const child = spawn(git.gitBin, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...BASE_ENV, ...run.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (!run.input) child.stdin.end();
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, run.timeoutMs);
    const onOutputClose = () => {
      if (child.exitCode !== null) return;
      if (run.killOnOutputClose) {
        child.kill('SIGTERM');
        return;
      }
      // Nobody reads any more: drain git's answer so that it is never blocked writing it.
      child.stdout.unpipe(run.output);
      child.stdout.resume();
    };
    run.output.once('close', onOutputClose);
    child.stderr.on('data', (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-4096);
    });
    if (run.onFirstOutput) child.stdout.once('data', run.onFirstOutput);
    child.stdout.pipe(run.output, { end: false });
    child.stdin.on('error', () => undefined); // git may exit before reading everything (EPIPE)
    if (run.input) {
      // A failed body (the client went away, a corrupt or oversized gzip body): git sees its request end and stops.
      run.input.on('error', () => child.stdin.destroy());
      run.input.pipe(child.stdin);
    }
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.output.off('close', onOutputClose);
      if (run.input) run.input.unpipe(child.stdin);
      resolve({ code, stderr, timedOut });
    };
    child.on('error', (err) => {
      stderr += String(err);
      finish(null);
    });
    // 'close': stdout is drained into `output` by then.
    child.on('close', (code) => finish(code));
  });
}
