// The migrations Job's wait-for-postgresql init container (chart, postgresql.enabled), run for real: the script is
// taken from the rendered manifest and run as the image runs it (node -e, working directory with node_modules/pg)
// against real PostgreSQL that becomes reachable only after a while. Needs PostgreSQL: jest project `integration`.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { infraFromEnv } from '@glp/testing';
import { BUNDLED_VALUES } from '../chart-contract';
import { REPO_ROOT, cleanupHelmHome, template } from '../helm';
import { ofKind, parseManifests } from '../manifests';

jest.setTimeout(60_000);
afterAll(cleanupHelmHome);

function waitScript(): string[] {
  const job = ofKind(parseManifests(template(['-f', BUNDLED_VALUES])), 'Job').find((j) => /migrations/.test(j.metadata.name))!;
  const init = job.spec.template.spec.initContainers[0];
  expect(init.name).toBe('wait-for-postgresql');
  return init.command;
}

/** A TCP proxy to PostgreSQL on a free port that accepts connections only once `open()` is called. */
async function lateProxy(target: URL) {
  let open = false;
  const server = net.createServer((client) => {
    if (!open) return client.destroy(); // like a server that is not up yet
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, open: () => { open = true; }, close: () => new Promise((r) => server.close(r)) };
}

test('waits while PostgreSQL refuses, then exits 0 once it answers a query', async () => {
  const [cmd, ...args] = waitScript();
  expect(cmd).toBe('node');
  const real = new URL(infraFromEnv().databaseUrl);
  const proxy = await lateProxy(real);
  const url = new URL(real.href);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: url.href } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await new Promise((r) => setTimeout(r, 4500));
    expect(child.exitCode).toBeNull(); // still waiting
    expect(out.match(/waiting for postgresql/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    const openedAt = Date.now();
    proxy.open();
    expect(await exited).toBe(0);
    expect(Date.now() - openedAt).toBeLessThan(5000);
    expect(out).toMatch(/postgresql is ready/);
  } finally {
    child.kill();
    await proxy.close();
  }
});

// A database that is still being initialized (Bitnami's initdb creates the user's database) is waited for too.
test('keeps waiting (never exits 0) while its database does not exist', async () => {
  const [, ...args] = waitScript();
  const url = new URL(infraFromEnv().databaseUrl);
  url.pathname = '/no_such_database_yet';
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: url.href } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  try {
    await new Promise((r) => setTimeout(r, 3000));
    expect(child.exitCode).toBeNull();
    expect(out).toMatch(/waiting for postgresql: database "no_such_database_yet" does not exist/);
  } finally {
    child.kill();
  }
});
