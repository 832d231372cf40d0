import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RunningStack } from '@glp/testing';

const run = promisify(execFile);

/** JSON over the gateway as a token holder (root by default), failing loudly on an unexpected status. */
export function apiOf(stack: RunningStack) {
  const api = (p: string, init: RequestInit & { token?: string } = {}) =>
    fetch(`${stack.apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': init.token ?? stack.rootToken, 'Content-Type': 'application/json', ...init.headers } });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const post = async (p: string, body: unknown, status = 201, token?: string) => expectJson(await api(p, { method: 'POST', body: JSON.stringify(body), token }), status);
  const put = async (p: string, body: unknown, status = 200, token?: string) => expectJson(await api(p, { method: 'PUT', body: JSON.stringify(body), token }), status);
  const get = async (p: string, status = 200, token?: string) => expectJson(await api(p, { token }), status);
  return { api, expectJson, post, put, get };
}

/** A local clone that commits and pushes through the gateway with the real git CLI (as root). */
export async function gitWorkspace(stack: RunningStack, pathWithNamespace: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glp-e2e-hooks-'));
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: dir, GIT_ASKPASS: '', SSH_ASKPASS: '' };
  const git = async (...args: string[]) => (await run('git', ['-c', 'user.name=Root Pusher', '-c', 'user.email=root@example.com', ...args], { cwd: dir, env })).stdout.trim();
  const remote = new URL(`${stack.url}/${pathWithNamespace}.git`);
  remote.username = 'root';
  remote.password = stack.rootToken;
  await git('init', '-q', '-b', 'main');
  await git('remote', 'add', 'origin', remote.toString());
  let n = 0;
  return {
    dir,
    git,
    /** Commits a new file on the current branch; answers the new commit's sha. */
    async commit(message = `change ${++n}`): Promise<string> {
      writeFileSync(path.join(dir, `file-${Date.now()}-${n++}.txt`), message);
      await git('add', '-A');
      await git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    /** `git push origin <refspecs>`; throws with git's stderr when it fails. */
    async push(...refspecs: string[]): Promise<void> {
      await git('push', '-q', 'origin', ...refspecs);
    },
  };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
