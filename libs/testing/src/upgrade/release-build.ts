import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../infra';
import { extractAt } from './previous-release';

const run = promisify(execFile);

/** Where built releases are kept between runs (git-ignored with the rest of .infra). */
export const RELEASES_DIR = path.join(REPO_ROOT, '.infra', 'releases');

/**
 * A release's tree at `commit`, installed (`npm ci`) and built as `npm test` builds it, under RELEASES_DIR; reused when
 * a complete build of that commit is already there. Answers its root.
 */
export async function builtRelease(commit: string, log: (line: string) => void = () => undefined): Promise<string> {
  const dir = path.join(RELEASES_DIR, commit);
  const stamp = path.join(dir, '.built');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === commit) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`extracting ${commit} into ${dir}`);
  await extractAt(commit, ['.'], dir);
  const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' };
  const opts = { cwd: dir, env, maxBuffer: 256 * 1024 * 1024 };
  log('npm ci');
  await run('npm', ['ci'], opts);
  log('build');
  await run('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=static'], opts);
  writeFileSync(stamp, `${commit}\n`);
  return dir;
}
