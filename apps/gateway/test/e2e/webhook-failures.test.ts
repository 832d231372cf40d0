import { spawn, type ChildProcess } from 'node:child_process';
import { eventually, freePort, infraFromEnv, pushEventSource, REPO_ROOT, startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';
import { apiOf, sleep } from './webhook-kit';

/** How long the receiver stays down (the issue asks for 60 s; WEBHOOK_DOWNTIME_MS shortens it for local runs). */
const DOWNTIME_MS = Number(process.env.WEBHOOK_DOWNTIME_MS ?? 60_000);

/** Successful deliveries per Idempotency-Key, and how many keys were answered 2xx more than once. */
function tally(received: { status: number; headers: Record<string, string | string[] | undefined> }[]) {
  const ok = new Map<string, number>();
  for (const r of received) if (r.status < 300) ok.set(String(r.headers['idempotency-key']), (ok.get(String(r.headers['idempotency-key'])) ?? 0) + 1);
  return { ok, duplicated: [...ok.values()].filter((n) => n > 1).length };
}

/**
 * Deliveries survive failures: a receiver down for a minute gets every event once it is back (the hook backs off as
 * GitLab's auto-disable says, then recovers), and two dispatcher replicas share one queue without sending an event twice.
 * Events are written to repo-admin's outbox as a git push writes them, so the counts are exact.
 */
describe('webhook delivery under failures', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let h: ReturnType<typeof apiOf>;
  let source: ReturnType<typeof pushEventSource>;
  let replica: ChildProcess | undefined;
  let replicaMetrics = '';

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({
      name: 'e2e_webhook_faults',
      env: {
        ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '3000', WEBHOOK_MAX_ATTEMPTS: '100',
        WEBHOOK_DISABLE_BASE_MS: '500', WEBHOOK_DISABLE_MAX_MS: '3000', WEBHOOK_POLL_MS: '200',
      },
    });
    h = apiOf(stack);
    source = pushEventSource(stack, infraFromEnv().databaseUrl);
  });
  afterAll(async () => {
    if (process.env.WEBHOOK_DEBUG_LOG) require('node:fs').writeFileSync(process.env.WEBHOOK_DEBUG_LOG, stack?.logs() ?? '');
    replica?.kill('SIGKILL');
    await source?.close();
    await stack?.stop();
    await receiver?.close();
  });

  it(`delivers every event once a receiver that was down for ${DOWNTIME_MS / 1000} s is back`, async () => {
    const down = await startWebhookReceiver();
    try {
      const project = await h.post('/projects', { name: 'outage' });
      const hook = await h.post(`/projects/${project.id}/hooks`, { url: `${down.url}/down` });
      await down.stop();
      const started = Date.now();
      const emitted: string[] = [];
      let sawDisabled = false;
      // Six events spread over the outage, while the hook backs off.
      for (let i = 0; i < 6; i++) {
        emitted.push(...(await source.emit(project.id)).map((e) => e.eventId));
        const until = started + ((i + 1) * DOWNTIME_MS) / 6;
        while (Date.now() < until) {
          const seen = await h.get(`/projects/${project.id}/hooks/${hook.id}`);
          if (seen.alert_status === 'temporarily_disabled' && seen.disabled_until) sawDisabled = true;
          await sleep(Math.min(1000, Math.max(0, until - Date.now())));
        }
      }
      expect(sawDisabled).toBe(true); // GitLab's auto-disable: 4 failures in a row back the hook off
      expect(down.received).toHaveLength(0);
      await down.start();

      await eventually(async () => new Set(down.received.filter((r) => r.status === 200).map((r) => r.headers['x-gitlab-event-uuid'])).size === emitted.length, 30_000, 200);
      await sleep(1000);
      const { ok, duplicated } = tally(down.received);
      expect(ok.size).toBe(emitted.length); // 0 lost
      expect(duplicated).toBe(0); // 0 duplicated
      expect(new Set(down.received.map((r) => r.headers['x-gitlab-event-uuid'])).size).toBe(emitted.length);
      expect([...new Set(down.received.map((r) => String(r.headers['x-gitlab-event-uuid'])))].sort()).toEqual([...emitted].sort());
      // Recovered: a success re-enables the hook.
      await eventually(async () => (await h.get(`/projects/${project.id}/hooks/${hook.id}`)).alert_status === 'executable');
    } finally {
      await down.close();
    }
  }, DOWNTIME_MS + 90_000);

  it('shares the queue between two dispatcher replicas: each event delivered once', async () => {
    const { main, env } = stack.serviceEnv('webhook-dispatcher');
    const [grpcPort, metricsPort] = await Promise.all([freePort(), freePort()]);
    replicaMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
    let output = '';
    replica = spawn(process.execPath, [main], { cwd: REPO_ROOT, env: { ...process.env, ...env, GRPC_PORT: String(grpcPort), METRICS_PORT: String(metricsPort) }, stdio: ['ignore', 'pipe', 'pipe'] });
    replica.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    replica.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    await eventually(async () => (await fetch(replicaMetrics)).ok, 20_000, 200).catch((err) => {
      throw new Error(`${String(err)}\n${output}`);
    });

    const projects = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((name) => h.post('/projects', { name: `replicas-${name}` })));
    for (const p of projects) await h.post(`/projects/${p.id}/hooks`, { url: `${receiver.url}/replicas` });
    receiver.respond('/replicas', () => 200);
    const emitted = (await Promise.all(projects.map((p) => source.emit(p.id, 50)))).flat();
    await receiver.waitFor('/replicas', emitted.length, 60_000);
    await sleep(1500);
    const got = receiver.at('/replicas');
    expect(got).toHaveLength(emitted.length);
    expect(new Set(got.map((r) => r.headers['x-gitlab-event-uuid'])).size).toBe(emitted.length);
    expect(tally(got).duplicated).toBe(0);
    // Both replicas did part of the work.
    const sent = async (url: string) => {
      const text = await (await fetch(url)).text();
      return [...text.matchAll(/^webhook_deliveries_total\{[^}]*outcome="success"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
    };
    const [first, second] = await Promise.all([sent(stack.metricsUrls.webhookDispatcher), sent(replicaMetrics)]);
    expect(first + second).toBeGreaterThanOrEqual(emitted.length);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
  });
});
