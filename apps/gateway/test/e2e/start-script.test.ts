import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from '@glp/testing';

/**
 * `npm start` reports "ready" only when ITS gateway answers: deploy/local/wait-for-gateway.sh requires the
 * INSTANCE_ID that start.sh gave the gateway in GET /-/readiness, so another process answering on the port
 * (a stale stack, anything else) is told apart instead of being taken for ours.
 */
const SCRIPT = path.join(REPO_ROOT, 'deploy/local/wait-for-gateway.sh');

function fakeGateway(instance?: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ status: 'ok', checks: { identity: 'ok', projects: 'ok' }, ...(instance ? { instance } : {}) }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })),
  );
}

function wait(url: string, instance: string, timeoutS: number, pids: number[] = []): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn('bash', [SCRIPT, url, instance, String(timeoutS), ...pids.map(String)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, ms: Date.now() - started })));
}

describe('wait-for-gateway.sh (npm start readiness)', () => {
  it('does not report ready when another process answers on the port', async () => {
    const { server, url } = await fakeGateway(); // healthy-looking, but not ours
    try {
      const r = await wait(url, 'start-123-456', 2);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`another process answers on ${url}`);
      const other = await fakeGateway('start-999-999');
      try {
        expect((await wait(other.url, 'start-123-456', 1)).code).toBe(1);
      } finally {
        other.server.close();
      }
    } finally {
      server.close();
    }
  });

  it('reports ready as soon as its own gateway answers', async () => {
    const { server, url } = await fakeGateway('start-123-456');
    try {
      const r = await wait(url, 'start-123-456', 10);
      expect(r.code).toBe(0);
      expect(r.ms).toBeLessThan(3000);
    } finally {
      server.close();
    }
  });

  it('fails fast when one of its services exits during start-up', async () => {
    const gone = spawn('true');
    const pid = gone.pid!;
    await new Promise((resolve) => gone.once('exit', resolve));
    const r = await wait('http://127.0.0.1:9', 'start-1-1', 30, [pid]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('a service exited during start-up');
    expect(r.ms).toBeLessThan(5000);
  });

  it('every service refuses to start with the built-in ACTOR_SECRET outside development/test, naming the variable', async () => {
    for (const app of ['gateway', 'identity', 'projects']) {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, `apps/${app}/dist/main.js`)], {
        env: { PATH: process.env.PATH, NODE_ENV: 'production', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(stderr).toContain('ACTOR_SECRET: the built-in development secret is refused when NODE_ENV is "production"');
    }
  });
});
