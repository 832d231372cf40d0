import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Pool } from '@glp/db';
import { identityV1 } from '@glp/proto';
import type { Actor, Logger } from '@glp/service-kit';
import { BareRepository } from '../../src/disk/bare-repository';
import { hashedDiskPath } from '../../src/domain/hashed-storage';
import { startGitOverHttp } from '../../src/http/git-over-http';

/** What the push tests share: alice pushing over git HTTP to repo-admin's listener on one storage root. */
export const run = promisify(execFile);
export const PUSH_SECRET = 'integration-test-actor-secret';
export const alice: Actor = { kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'] };
export const gitEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
/** git in a local clone, committing as alice. */
export const localGit = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=Alice', '-c', 'user.email=alice@example.com', ...args], { encoding: 'utf8', env: gitEnv }).trim();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** repo-admin's git HTTP listener on `root` with an identity that knows alice. */
export function startPushListener(pool: Pool, root: string, logger: Logger) {
  const identity = {
    getUser: jest.fn(async () => ({ user: identityV1.User.fromPartial({ id: 7, username: 'alice', name: 'Alice' }), view: 'admin' })),
  };
  const deps = { pool, identity, topic: 'test.repo_admin', git: { gitBin: 'git', timeoutMs: 30_000 }, storageRoot: root, storage: 'default', logger };
  return startGitOverHttp(deps, { host: '127.0.0.1', port: 0, actorSecret: PUSH_SECRET, logger });
}

/** Project 1's repository with one commit on `main`, cloned through the granting proxy into `dest`. */
export async function seedAndClone(root: string, proxyUrl: string, dest: string): Promise<void> {
  const repo = new BareRepository({ gitBin: 'git', timeoutMs: 30_000 }, path.join(root, hashedDiskPath(1)));
  await repo.init('main');
  await repo.commitFile('main', 'README.md', '# one\n', 'Initial commit', { name: 'Admin', email: 'admin@example.com' });
  await run('git', ['clone', '-q', `${proxyUrl}/projects/1.git`, dest], { env: gitEnv });
}
