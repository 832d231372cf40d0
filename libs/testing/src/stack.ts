import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEV_ACTOR_SECRET } from '@glp/service-kit';
import { freePort } from './free-port';
import { TcpProxy } from './tcp-proxy';
import { infraFromEnv, REPO_ROOT } from './infra';
import { dropSchemas, uniqueName } from './isolation';
import { registerSecret, stackLogFile } from './secret-registry';

/**
 * Node flags every service runs with, as deploy/local/services.sh SERVICE_NODE_FLAGS (npm start) and the image's
 * entrypoint: `--no-memory-reducer` keeps V8 from shrinking an idle process's heap, after which the next load ran a major
 * GC every ~0.2 s and doubled the gateway's CPU per listing for tens of seconds (bench/README.md).
 */
export const SERVICE_NODE_FLAGS = ['--no-memory-reducer'];

/**
 * Flags added for the two services every read goes through, as deploy/local/services.sh HOT_PATH_NODE_FLAGS and the
 * image's entrypoint: `--max-semi-space-size=4` (MB) keeps their young generation small, so each scavenge is a pause of
 * a few ms instead of 7–25 ms every ~0.35 s under listing load. A longer pause held every request in flight, which
 * pushed those into the tail: the offset listing at c=32, nine alternated pairs, p90 46.3 against 50.4 ms on average
 * and p99 69.8 against 78.6 at the same throughput (bench/README.md, "A small young generation for gateway and projects").
 */
export const HOT_PATH_NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  gateway: ['--max-semi-space-size=4'],
  projects: ['--max-semi-space-size=4'],
};

export interface RunningStack {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** http://127.0.0.1:41234/api/v4 */
  apiUrl: string;
  rootToken: string;
  schemas: { identity: string; projects: string; accessRequests: string; repoAdmin: string; hooks: string; webhookDispatcher: string; pushRules: string };
  topicPrefix: string;
  /** repo-admin's storage root (its bare repositories, GitLab's hashed layout). */
  storageRoot: string;
  /** repo-admin's git HTTP listener (the gateway proxies git smart HTTP there; it answers signed requests only). */
  repoAdminHttpUrl: string;
  /** gRPC addresses of the services (benchmarks call them directly). */
  grpcAddrs: { identity: string; projects: string; accessRequests: string; repoAdmin: string; hooks: string; webhookDispatcher: string; pushRules: string };
  /** Prometheus endpoints by service. */
  metricsUrls: { identity: string; projects: string; gateway: string; accessRequests: string; repoAdmin: string; hooks: string; webhookDispatcher: string; pushRules: string };
  /** Everything the services printed, for failure messages. */
  logs(): string;
  /** Sends a signal to one service (failure tests: SIGKILL projects, SIGSTOP identity ...). */
  signal(service: StackService, signal: NodeJS.Signals): void;
  /**
   * Starts a service again after it exited (a SIGKILL or SIGTERM from `signal`), with the same ports and environment;
   * resolves once the new process is spawned (not once it serves: poll for that, it is what failure tests measure).
   * Waits up to 15 s for the old process to be gone (throws if it is still running); resolves with its exit code
   * (null: killed by a signal).
   */
  restart(service: StackService): Promise<number | null>;
  /** The environment a service of this stack was started with (a test starts a second replica with it). */
  serviceEnv(service: StackService): { main: string; env: Record<string, string> };
  /** The process id of each running service (the on-CPU benchmark tells their samples apart by it). */
  pids(): Partial<Record<StackService, number>>;
  /**
   * A rolling update of one service (stacks started with `rolling` only): the new process (`root`'s build) starts beside
   * the old one on ports of its own, and once it is ready the service's address leads to it and the old one gets SIGTERM
   * (a Deployment with maxSurge 1, maxUnavailable 0). `recreate`: the old one stops first (repo-admin's StatefulSet,
   * one pod per volume). Resolves when the old process has exited. The service's metrics move to a new port.
   */
  replace(service: StackService, opts: { root: string; env?: Record<string, string>; recreate?: boolean }): Promise<{ tookMs: number; oldExitCode: number | null }>;
  /** SIGTERM to every service (SIGKILL after 10 s); resolves with each one's exit code (null: killed by a signal). Idempotent. */
  stop(): Promise<Record<string, number | null>>;
}

export type StackService = 'identity' | 'projects' | 'access-requests' | 'repo-admin' | 'hooks' | 'webhook-dispatcher' | 'push-rules' | 'gateway';

interface ServiceSpec {
  name: string;
  main: string;
  env: Record<string, string>;
  /** The build it runs from, when not the stack's (a service replaced by `replace`). */
  root?: string;
}

/** Resolves once a TCP connection to 127.0.0.1:port opened (and closes it); rejects when refused. */
function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/**
 * Boots identity, projects, access-requests, repo-admin, hooks, webhook-dispatcher, push-rules and the gateway from their built `dist/` on free ports, with
 * their own schemas, topic prefix and consumer group, so several stacks (test files) run
 * side by side on one PostgreSQL/Kafka/Redis. Resolves when the gateway is ready. `without` leaves services out (a
 * test that plays repo-admin's part itself on Kafka).
 */
export async function startStack(
  opts: {
    name?: string; env?: Record<string, string>; readyTimeoutMs?: number; without?: ('repo-admin' | 'hooks' | 'webhook-dispatcher' | 'push-rules')[];
    /** Node flags added for a service after the usual ones (the on-CPU benchmark: `--perf-basic-prof`). */
    nodeFlags?: Partial<Record<StackService, readonly string[]>>;
    /** Where the services' builds are (default: this checkout; the upgrade test starts a previous release's). */
    serviceRoot?: string;
    /** Every listener behind a TCP proxy on the address the others use, so that `replace` can swap a service. */
    rolling?: boolean;
  } = {},
): Promise<RunningStack> {
  const infra = infraFromEnv();
  const id = uniqueName(opts.name ?? 'e2e');
  const schemas = {
    identity: `${id}_identity`, projects: `${id}_projects`, accessRequests: `${id}_access_requests`, repoAdmin: `${id}_repo_admin`, hooks: `${id}_hooks`,
    webhookDispatcher: `${id}_webhook_dispatcher`, pushRules: `${id}_push_rules`,
  };
  // The suite-wide secrets-in-logs check (secret-registry.ts): this stack's log file (undefined outside a jest run).
  const logFile = stackLogFile(id);
  const topicPrefix = `${id}.`;
  const rootToken = `glpat-${randomBytes(15).toString('base64url')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'glp-stack-'));
  const [identityPort, projectsPort, accessRequestsPort, repoAdminPort, gatewayPort, repoAdminHttpPort, hooksPort, dispatcherPort, pushRulesPort, ...metricsPorts] = await Promise.all(Array.from({ length: 17 }, () => freePort()));
  const repoAdminHttpUrl = `http://127.0.0.1:${repoAdminHttpPort}`;
  const serviceRoot = opts.serviceRoot ?? REPO_ROOT;
  // The port each service listens on: the address others use, or (rolling) one behind the proxy on that address.
  const listening = {
    identity: identityPort, projects: projectsPort, 'access-requests': accessRequestsPort, 'repo-admin': repoAdminPort, hooks: hooksPort,
    'webhook-dispatcher': dispatcherPort, 'push-rules': pushRulesPort, gateway: gatewayPort, repoAdminHttp: repoAdminHttpPort,
  };
  const proxies = new Map<string, TcpProxy>();
  if (opts.rolling) {
    for (const key of Object.keys(listening) as (keyof typeof listening)[]) {
      const backend = await freePort();
      proxies.set(key, await TcpProxy.start('127.0.0.1', backend, listening[key]));
      listening[key] = backend;
    }
  }
  const storageRoot = path.join(dataDir, 'repositories');
  const common: Record<string, string> = {
    DATABASE_URL: infra.databaseUrl,
    REDIS_URL: infra.redisUrl,
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: topicPrefix,
    // One node, as npm start: every service applies its post-deployment migrations too.
    MIGRATE_POST_DEPLOYMENT: 'true',
    LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn',
    // Allows the built-in ACTOR_SECRET (services refuse it outside development/test).
    NODE_ENV: process.env.NODE_ENV ?? 'test',
    IDENTITY_GRPC_ADDR: `127.0.0.1:${identityPort}`,
    PROJECTS_GRPC_ADDR: `127.0.0.1:${projectsPort}`,
    ACCESS_REQUESTS_GRPC_ADDR: `127.0.0.1:${accessRequestsPort}`,
    REPO_ADMIN_GRPC_ADDR: `127.0.0.1:${repoAdminPort}`,
    REPO_ADMIN_HTTP_URL: repoAdminHttpUrl,
    HOOKS_GRPC_ADDR: `127.0.0.1:${hooksPort}`,
    WEBHOOK_DISPATCHER_GRPC_ADDR: `127.0.0.1:${dispatcherPort}`,
    PUSH_RULES_GRPC_ADDR: `127.0.0.1:${pushRulesPort}`,
    // In a suite run the gateway's access line of every request (path and query, credentials censored) reaches the log
    // even at LOG_LEVEL=warn, so the secrets check searches every request the tests made.
    ...(logFile ? { ACCESS_LOG_LEVEL: 'warn' } : {}),
    ...opts.env,
  };
  const all: ServiceSpec[] = [
    { name: 'identity', main: 'apps/identity/dist/main.js', env: { DB_SCHEMA: schemas.identity, GRPC_PORT: String(listening.identity), GITLAB_ROOT_TOKEN: rootToken, DATA_DIR: dataDir, METRICS_PORT: String(metricsPorts[0]) } },
    { name: 'projects', main: 'apps/projects/dist/main.js', env: { DB_SCHEMA: schemas.projects, GRPC_PORT: String(listening.projects), KAFKA_CONSUMER_GROUP: `${id}-projects`, METRICS_PORT: String(metricsPorts[1]) } },
    { name: 'access-requests', main: 'apps/access-requests/dist/main.js', env: { DB_SCHEMA: schemas.accessRequests, GRPC_PORT: String(listening['access-requests']), KAFKA_CONSUMER_GROUP: `${id}-access-requests`, METRICS_PORT: String(metricsPorts[3]) } },
    { name: 'repo-admin', main: 'apps/repo-admin/dist/main.js', env: { DB_SCHEMA: schemas.repoAdmin, GRPC_PORT: String(listening['repo-admin']), KAFKA_CONSUMER_GROUP: `${id}-repo-admin`, METRICS_PORT: String(metricsPorts[4]), STORAGE_ROOT: storageRoot, JOB_POLL_MS: '200', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(listening.repoAdminHttp) } },
    { name: 'hooks', main: 'apps/hooks/dist/main.js', env: { DB_SCHEMA: schemas.hooks, GRPC_PORT: String(listening.hooks), KAFKA_CONSUMER_GROUP: `${id}-hooks`, METRICS_PORT: String(metricsPorts[5]) } },
    { name: 'webhook-dispatcher', main: 'apps/webhook-dispatcher/dist/main.js', env: { DB_SCHEMA: schemas.webhookDispatcher, GRPC_PORT: String(listening['webhook-dispatcher']), KAFKA_CONSUMER_GROUP: `${id}-webhook-dispatcher`, METRICS_PORT: String(metricsPorts[6]), EXTERNAL_URL: `http://127.0.0.1:${gatewayPort}` } },
    { name: 'push-rules', main: 'apps/push-rules/dist/main.js', env: { DB_SCHEMA: schemas.pushRules, GRPC_PORT: String(listening['push-rules']), KAFKA_CONSUMER_GROUP: `${id}-push-rules`, METRICS_PORT: String(metricsPorts[7]) } },
    // Rate-limit counters are keyed by ids that repeat in every fresh stack: each stack counts on its own.
    { name: 'gateway', main: 'apps/gateway/dist/main.js', env: { PORT: String(listening.gateway), HOST: '127.0.0.1', METRICS_PORT: String(metricsPorts[2]), INSTANCE_ID: id, RATE_LIMIT_KEY_PREFIX: `glp:rl:${id}` } },
  ];
  const services = all.filter((s) => !opts.without?.includes(s.name as 'repo-admin'));
  const serviceEnv = (service: StackService) => {
    const spec = services.find((s) => s.name === service) ?? all.find((s) => s.name === service)!;
    return { main: path.join(spec.root ?? serviceRoot, spec.main), env: { ...common, ...spec.env } };
  };
  for (const s of services) {
    if (!existsSync(path.join(serviceRoot, s.main))) throw new Error(`${path.join(serviceRoot, s.main)} is missing: build first (npm run build)`);
  }
  let output = '';
  if (logFile) {
    // Created at once (an empty file still counts as a stack to check), then the secrets this stack was given.
    writeFileSync(logFile, '', { flag: 'a' });
    registerSecret(rootToken, `${id} root token`);
    const env = { ...process.env, ...common };
    registerSecret(env.ACTOR_SECRET || DEV_ACTOR_SECRET, `${id} ACTOR_SECRET`);
    registerSecret(env.HOOKS_SECRETS_KEY, `${id} HOOKS_SECRETS_KEY`);
    registerSecret(env.GITLAB_ROOT_PASSWORD, `${id} GITLAB_ROOT_PASSWORD`);
  }
  const spawnService = (s: ServiceSpec): ChildProcess => {
    const flags = [...SERVICE_NODE_FLAGS, ...(HOT_PATH_NODE_FLAGS[s.name] ?? []), ...(opts.nodeFlags?.[s.name as StackService] ?? [])];
    const child = spawn(process.execPath, [...flags, s.main], {
      cwd: s.root ?? serviceRoot,
      env: { ...process.env, ...common, ...s.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (b: Buffer) => {
      const text = b.toString().replace(/^(?=.)/gm, `[${s.name}] `);
      output += text;
      if (logFile) appendFileSync(logFile, text);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    return child;
  };
  const children: ChildProcess[] = services.map(spawnService);
  const url = `http://127.0.0.1:${gatewayPort}`;
  let stopped: Promise<Record<string, number | null>> | undefined;
  /** Resolves with a child's exit code once it has exited (null: killed by a signal); SIGKILL if it runs `killAfterMs` more. */
  const exited = (child: ChildProcess, killAfterMs: number) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  const stopAll = async () => {
    const codes = await Promise.all(
      children.map((c) => {
        const done = exited(c, 10000);
        c.kill('SIGTERM');
        return done;
      }),
    );
    await Promise.all([...proxies.values()].map((p) => p.close()));
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchemas(...Object.values(schemas)).catch(() => undefined);
    return Object.fromEntries(services.map((s, i) => [s.name, codes[i] ?? null]));
  };
  const stop = () => (stopped ??= stopAll());
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60000);
  for (;;) {
    const dead = children.find((c) => c.exitCode !== null);
    if (dead) {
      await stop();
      throw new Error(`a service exited during start-up:\n${output}`);
    }
    try {
      const res = await fetch(`${url}/-/readiness`);
      // Ready means OUR gateway is ready, not some other process that took the port.
      if (res.ok && ((await res.json()) as { instance?: string }).instance === id) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`stack not ready within ${opts.readyTimeoutMs ?? 60000} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const metricsUrls = {
    identity: `http://127.0.0.1:${metricsPorts[0]}/metrics`,
    projects: `http://127.0.0.1:${metricsPorts[1]}/metrics`,
    gateway: `http://127.0.0.1:${metricsPorts[2]}/metrics`,
    accessRequests: `http://127.0.0.1:${metricsPorts[3]}/metrics`,
    repoAdmin: `http://127.0.0.1:${metricsPorts[4]}/metrics`,
    hooks: `http://127.0.0.1:${metricsPorts[5]}/metrics`,
    webhookDispatcher: `http://127.0.0.1:${metricsPorts[6]}/metrics`,
    pushRules: `http://127.0.0.1:${metricsPorts[7]}/metrics`,
  };
  const signal = (service: string, sig: NodeJS.Signals) => {
    children[services.findIndex((s) => s.name === service)]?.kill(sig);
  };
  const restart = async (service: StackService): Promise<number | null> => {
    const i = services.findIndex((s) => s.name === service);
    if (i < 0) throw new Error(`${service} is not part of this stack`);
    const old = children[i]!;
    if (old.exitCode === null && old.signalCode === null) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${service} is still running`)), 15000);
        old.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (stopped) throw new Error('the stack is stopped');
    children[i] = spawnService(services[i]!);
    return old.exitCode;
  };
  const replace = async (service: StackService, r: { root: string; env?: Record<string, string>; recreate?: boolean }) => {
    if (!opts.rolling) throw new Error('replace needs a stack started with rolling: true');
    const i = services.findIndex((x) => x.name === service);
    if (i < 0) throw new Error(`${service} is not part of this stack`);
    const started = Date.now();
    const old = children[i]!;
    const spec = services[i]!;
    // New listening ports (the old process still holds its own), reached through the same proxies.
    const portKeys = (service === 'gateway' ? ['PORT'] : service === 'repo-admin' ? ['GRPC_PORT', 'HTTP_PORT'] : ['GRPC_PORT']) as string[];
    const next: ServiceSpec = { ...spec, root: r.root, env: { ...spec.env, ...r.env, METRICS_PORT: String(await freePort()) } };
    for (const key of portKeys) next.env[key] = String(await freePort());
    let oldExitCode: number | null = null;
    if (r.recreate) {
      old.kill('SIGTERM');
      oldExitCode = await exited(old, 30000);
    }
    const child = spawnService(next);
    children[i] = child;
    services[i] = next;
    await waitListening(service, child, next, portKeys);
    const proxyKeys = service === 'repo-admin' ? ['repo-admin', 'repoAdminHttp'] : [service];
    proxyKeys.forEach((k, n) => proxies.get(k)!.retarget(Number(next.env[portKeys[n]!])));
    if (!r.recreate) {
      old.kill('SIGTERM');
      oldExitCode = await exited(old, 30000);
    }
    return { tookMs: Date.now() - started, oldExitCode };
  };
  /** Until a started service answers: the gateway's readiness, or a service's metrics and its listening ports. */
  const waitListening = async (service: StackService, child: ChildProcess, spec: ServiceSpec, portKeys: string[]) => {
    const deadline = Date.now() + 60000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${service} exited during start-up:\n${output.slice(-4000)}`);
      const ok = await (async () => {
        if (service === 'gateway') return (await fetch(`http://127.0.0.1:${spec.env.PORT}/-/readiness`)).ok;
        if (!(await fetch(`http://127.0.0.1:${spec.env.METRICS_PORT}/metrics`)).ok) return false;
        for (const key of portKeys) await connectOnce(Number(spec.env[key]));
        return true;
      })().catch(() => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${service} not ready within 60 s:\n${output.slice(-4000)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const grpcAddrs = {
    identity: `127.0.0.1:${identityPort}`, projects: `127.0.0.1:${projectsPort}`, accessRequests: `127.0.0.1:${accessRequestsPort}`, repoAdmin: `127.0.0.1:${repoAdminPort}`,
    hooks: `127.0.0.1:${hooksPort}`, webhookDispatcher: `127.0.0.1:${dispatcherPort}`, pushRules: `127.0.0.1:${pushRulesPort}`,
  };
  const pids = () => Object.fromEntries(services.flatMap((s, i) => {
    const child = children[i];
    return child?.pid !== undefined && child.exitCode === null && child.signalCode === null ? [[s.name, child.pid]] : [];
  })) as Partial<Record<StackService, number>>;
  return { url, apiUrl: `${url}/api/v4`, rootToken, schemas, topicPrefix, storageRoot, repoAdminHttpUrl, grpcAddrs, metricsUrls, logs: () => output, signal, restart, replace, serviceEnv, pids, stop };
}
