import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The git CLI as a test client: no system or global config, no prompts, HOME in `home`. `git` resolves with the exit
 * code and output whatever happened; `mustGit` throws on a non-zero exit and resolves with the trimmed stdout.
 */
export function gitCli(home: string) {
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: home, GIT_ASKPASS: '', SSH_ASKPASS: '' };
  const git = async (cwd: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
      return { code: 0, stdout: stdout.trim(), stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  const mustGit = async (cwd: string, ...args: string[]) => {
    const r = await git(cwd, ...args);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  return { env, git, mustGit };
}
