import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, serveDirectory } from '@glp/testing';
import type { Resolver } from '@glp/url-guard';
import { runGit } from '../../src/disk/git';
import { prepareRemote, remoteAnswers, type PreparedRemote } from '../../src/disk/remote';

const ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'I', GIT_AUTHOR_EMAIL: 'i@e', GIT_COMMITTER_NAME: 'I', GIT_COMMITTER_EMAIL: 'i@e' };
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: ENV }).trim();
const OPTS = { timeoutMs: 15_000 };

/** Whether something listens on 127.0.0.1:port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

/**
 * The git side of the outbound guard, with the real git CLI: every hop git takes, and every address it connects to, is
 * the one the guard checked. The "internal" repository is a git server on 127.0.0.1 that no rule allows; the attacker
 * controls an allowed host (one allowlisted port, or an address the allowlist names) and the DNS answers.
 */
describe('git remotes behind the outbound guard', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'glp-remote-guard-'));
  let internal: { port: number; close(): void };
  let redirector: { port: number; close(): void };
  let daemon: ChildProcess;
  let daemonPort = 0;
  let internalHead = '';

  /** A fresh bare repository fetching everything from the prepared remote: the refs that landed. */
  const fetchInto = async (remote: PreparedRemote): Promise<string[]> => {
    const dir = mkdtempSync(path.join(root, 'dest-'));
    execFileSync('git', ['init', '-q', '--bare', dir], { env: ENV });
    await runGit('git', ['fetch', '--quiet', '--', remote.url, '+refs/heads/*:refs/heads/*'], { dir, env: remote.env, timeoutMs: OPTS.timeoutMs }).catch(() => undefined);
    return git(dir, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean);
  };

  beforeAll(async () => {
    const work = path.join(root, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work], { env: ENV });
    git(work, 'commit', '-q', '--allow-empty', '-m', 'internal only');
    git(work, 'branch', 'internal-secret');
    execFileSync('git', ['clone', '-q', '--bare', work, path.join(root, 'internal.git')], { env: ENV });
    git(path.join(root, 'internal.git'), 'update-server-info');
    internalHead = git(work, 'rev-parse', 'HEAD');
    internal = await serveDirectory(root);
    redirector = await serveDirectory(root, (p) => `http://127.0.0.1:${internal.port}${p}`);
    daemonPort = await freePort();
    daemon = spawn('git', ['daemon', '--export-all', `--base-path=${root}`, '--listen=127.0.0.1', `--port=${daemonPort}`, '--reuseaddr', root], { env: ENV, stdio: 'ignore' });
    for (let i = 0; i < 100 && !(await listening(daemonPort)); i++) await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(() => {
    daemon?.kill();
    internal?.close();
    redirector?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the internal servers answer git when a rule allows them (the attacks below are real)', async () => {
    for (const url of [`http://127.0.0.1:${internal.port}/internal.git`, `git://127.0.0.1:${daemonPort}/internal.git`]) {
      const prepared = await prepareRemote(url, { allowLocalNetwork: true, allowlist: [] });
      if (!prepared.ok) throw new Error(prepared.reason);
      expect(await remoteAnswers('git', prepared.remote, OPTS)).toBe(true);
      expect(await fetchInto(prepared.remote)).toEqual(['refs/heads/internal-secret', 'refs/heads/main']);
    }
    expect(internalHead).toMatch(/^[0-9a-f]{40}$/);
  });

  it('does not follow an allowed host’s 302 to a loopback git server (probe and fetch)', async () => {
    const prepared = await prepareRemote(`http://127.0.0.1:${redirector.port}/internal.git`, { allowLocalNetwork: false, allowlist: [`127.0.0.1:${redirector.port}`] });
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(await remoteAnswers('git', prepared.remote, OPTS)).toBe(false);
    expect(await fetchInto(prepared.remote)).toEqual([]);
  });

  // The attacker's DNS answers the guard with an allowed address (127.0.0.2, allowlisted), then answers git's own
  // lookup of the same name with 127.0.0.1 (here: the system's answer for "localhost"), where the internal server is.
  const rebinding: Resolver = async () => ['127.0.0.2'];
  const rules = { allowLocalNetwork: false, allowlist: ['127.0.0.2'] };

  it('connects git:// to the address it checked, so a rebinding DNS cannot reach the loopback daemon', async () => {
    const prepared = await prepareRemote(`git://localhost:${daemonPort}/internal.git`, rules, rebinding);
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(await remoteAnswers('git', prepared.remote, OPTS)).toBe(false);
    expect(await fetchInto(prepared.remote)).toEqual([]);
  });

  it('connects http:// to the address it checked, so a rebinding DNS cannot reach the loopback server', async () => {
    const prepared = await prepareRemote(`http://localhost:${internal.port}/internal.git`, rules, rebinding);
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(await remoteAnswers('git', prepared.remote, OPTS)).toBe(false);
    expect(await fetchInto(prepared.remote)).toEqual([]);
  });

  it('refuses git:// hosts written in another IPv4 form without asking DNS', async () => {
    const liar: Resolver = async () => ['93.184.216.34'];
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1']) {
      expect(await prepareRemote(`git://${host}:${daemonPort}/internal.git`, { allowLocalNetwork: false, allowlist: [] }, liar))
        .toEqual({ ok: false, reason: 'Requests to loopback addresses are not allowed' });
    }
  });
});
