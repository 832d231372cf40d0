import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { freePort, infraFromEnv, REPO_ROOT } from '@glp/testing';

/**
 * Every process exits within SHUTDOWN_TIMEOUT_MS of SIGTERM, whatever its hooks or its log destination do.
 * The gateway runs alone against "black hole" backends (they accept TCP and never answer), so a request can hang
 * in flight; its stdout is a pipe whose reader is gone or has stopped reading (what a log prefixer that died with
 * its process group leaves behind).
 */
const SHUTDOWN_TIMEOUT_MS = 2000;

let blackHole: Server;
let blackHolePort: number;
const held: Socket[] = [];

beforeAll(async () => {
  blackHole = createServer((socket) => void held.push(socket)); // accepts, never answers
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  blackHolePort = (blackHole.address() as { port: number }).port;
});
afterAll(async () => {
  held.forEach((s) => s.destroy());
  await new Promise((resolve) => blackHole.close(resolve));
});

async function startGateway(extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/gateway/dist/main.js')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      REDIS_URL: infraFromEnv().redisUrl,
      IDENTITY_GRPC_ADDR: `127.0.0.1:${blackHolePort}`,
      PROJECTS_GRPC_ADDR: `127.0.0.1:${blackHolePort}`,
      GRPC_DEADLINE_MS: '60000',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      LOG_LEVEL: 'debug',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited during start-up (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/-/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('gateway did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url };
}

/** SIGTERM, then how long until the process is gone and how it ended. */
function terminate(child: ChildProcess): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 30000);
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ ms: Date.now() - started, code, signal });
    });
    child.kill('SIGTERM');
  });
}

/** Requests that each log a line (unknown route: 404 without touching a backend). */
async function logLines(url: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: 50 }, async () => (await fetch(`${url}/api/v4/no-such-route-${'x'.repeat(200)}`)).arrayBuffer()));
  }
}

describe('shutdown that always ends', () => {
  it('exits within the budget when stdout has no reader and a request hangs in flight', async () => {
    const { child, url } = await startGateway();
    child.stdout!.destroy(); // the reader is gone: writes get EPIPE
    await logLines(url, 200);
    const hanging = fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-hangs-on-identity' } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    const end = await terminate(child);
    expect(end.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1500);
    // In-flight requests get half the budget, then their connections are cut: a clean exit, not the watchdog's SIGKILL.
    expect(end.signal).toBeNull();
    await hanging;
  });

  it('exits within the budget when stdout is full (its reader stopped reading) and a request hangs', async () => {
    const { child, url } = await startGateway();
    child.stdout!.pause(); // the reader holds the pipe open but never reads: it fills up, writes get EAGAIN
    await logLines(url, 1500); // ≥ 300 KB of access-log lines, far beyond a pipe's 64 KB
    const hanging = fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-hangs-on-identity' } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    const end = await terminate(child);
    expect(end.ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 1500);
    expect(end.signal).toBeNull();
    child.stdout!.destroy();
    await hanging;
  });

  it('exits 0 at once when nothing is in flight, even with idle keep-alive clients and a full stdout', async () => {
    const { child, url } = await startGateway();
    child.stdout!.pause();
    await logLines(url, 1500); // keep-alive connections stay open in this process's fetch pool
    const end = await terminate(child);
    expect(end.ms).toBeLessThan(1500);
    expect(end).toMatchObject({ code: 0, signal: null });
    child.stdout!.destroy();
  });

  it('a second SIGTERM during a stuck shutdown exits at once', async () => {
    const { child, url } = await startGateway({ SHUTDOWN_TIMEOUT_MS: '60000' });
    const hanging = fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-hangs-on-identity' } }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    expect(child.exitCode).toBeNull(); // still waiting for the in-flight request (budget 60 s)
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 1 });
    expect(Date.now() - started).toBeLessThan(1000);
    await hanging;
  });
});
