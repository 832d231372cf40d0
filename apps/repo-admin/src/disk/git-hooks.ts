import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The receive hooks repo-admin installs (GitLab's gitaly hooks: pre-receive asks whether the push may land). */
export const HOOK_NAMES = ['pre-receive', 'post-receive'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** Environment receive-pack gives its hooks: where to ask, and which push this is. */
export const HOOK_SOCKET_ENV = 'GLP_HOOK_SOCKET';
export const HOOK_PUSH_ENV = 'GLP_PUSH_ID';
/** The push's id travels in this header of the hook's call. */
export const PUSH_ID_HEADER = 'x-glp-push';

/**
 * The hook program (CommonJS, run by this Node binary; no shell): reads git's ref updates from stdin, sends them with the
 * quarantine environment and the push options to repo-admin over its private Unix socket, prints the messages it gets
 * back on stderr (git relays them as `remote: …`) and exits non-zero when the push is refused. A pre-receive hook that
 * cannot reach repo-admin refuses the push (GitLab: "Internal API unreachable"); a post-receive hook cannot undo it.
 */
function hookProgram(name: HookName): string {
  return `'use strict';
const HOOK = ${JSON.stringify(name)};
const http = require('node:http');
let done = false;
function fail() {
  if (done) return;
  done = true;
  process.stderr.write('GitLab: Internal API unreachable\\n');
  process.exitCode = HOOK === 'pre-receive' ? 1 : 0;
}
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const pushOptions = [];
  for (let i = 0; i < Number(process.env.GIT_PUSH_OPTION_COUNT || 0); i++) pushOptions.push(process.env['GIT_PUSH_OPTION_' + i] || '');
  const quarantine = {};
  for (const k of ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH']) if (process.env[k]) quarantine[k] = process.env[k];
  const body = Buffer.from(JSON.stringify({ changes: Buffer.concat(chunks).toString('utf8'), pushOptions, quarantine }));
  const req = http.request({
    socketPath: process.env.${HOOK_SOCKET_ENV}, method: 'POST', path: '/hooks/' + HOOK,
    headers: { 'content-type': 'application/json', 'content-length': body.length, '${PUSH_ID_HEADER}': process.env.${HOOK_PUSH_ENV} || '' },
  }, (res) => {
    const parts = [];
    res.on('data', (d) => parts.push(d));
    res.on('error', fail);
    res.on('end', () => {
      let answer;
      try { answer = JSON.parse(Buffer.concat(parts).toString('utf8')); } catch (e) { answer = undefined; }
      if (res.statusCode !== 200 || !answer) return fail();
      done = true;
      for (const m of answer.messages || []) process.stderr.write(String(m) + '\\n');
      process.exitCode = answer.allowed ? 0 : 1;
    });
  });
  req.on('error', fail);
  req.end(body);
});
`;
}

/**
 * Writes the hooks into a fresh private directory (mode 700; receive-pack runs with `core.hooksPath` pointing there) and
 * returns it with the path of the Unix socket the hooks call. The directory goes on `remove()`.
 */
export async function installGitHooks(nodeBin = process.execPath): Promise<{ dir: string; socketPath: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'glp-git-hooks-'));
  await chmod(dir, 0o700);
  // A shebang cannot hold spaces: fall back to PATH's node then.
  const shebang = /\s/.test(nodeBin) ? '#!/usr/bin/env node' : `#!${nodeBin}`;
  for (const name of HOOK_NAMES) {
    const file = path.join(dir, name);
    await writeFile(file, `${shebang}\n${hookProgram(name)}`, { mode: 0o700 });
  }
  return { dir, socketPath: path.join(dir, 'hooks.sock'), remove: () => rm(dir, { recursive: true, force: true }) };
}
