import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { REPO_ROOT } from './infra';

const run = promisify(execFile);
const INFRA = path.join(REPO_ROOT, 'deploy/local/infra.sh');
/** The shared infrastructure's state dir: a private broker reuses its Kafka jars (no second download). */
const SHARED_STATE = process.env.INFRA_STATE_DIR ?? path.join(REPO_ROOT, '.infra');

/** A PostgreSQL cluster or Kafka broker of one test file, which it may stop, restart or kill without disturbing the rest. */
export interface PrivateInfra {
  /** DATABASE_URL (PostgreSQL) or KAFKA_BROKERS (Kafka) for a stack's `env`. */
  url: string;
  up(): Promise<void>;
  down(): Promise<void>;
  /** Stops it and removes its state. Idempotent. */
  remove(): Promise<void>;
}

async function infra(action: 'up' | 'down', component: 'pg' | 'kafka', env: Record<string, string>) {
  await run('bash', [INFRA, action, component], { env: { ...process.env, ...env }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
}

/** Starts `component` with `env` (a state dir of its own), answering the PrivateInfra that stops and removes it. */
async function startPrivate(component: 'pg' | 'kafka', dir: string, env: Record<string, string>, url: string): Promise<PrivateInfra> {
  let removed = false;
  await infra('up', component, env);
  return {
    url,
    up: () => infra('up', component, env),
    down: () => infra('down', component, env),
    async remove() {
      if (removed) return;
      removed = true;
      await infra('down', component, env).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A single-node Kafka broker of its own (deploy/local/infra.sh with another state dir and ports, the shared jars):
 * tests that stop the broker run next to the others instead of alone.
 */
export async function startPrivateKafka(): Promise<PrivateInfra> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glp-kafka-'));
  const [port, controller] = [await freePort(), await freePort()];
  const env = { INFRA_STATE_DIR: dir, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controller), KAFKA_LIB: path.join(SHARED_STATE, 'kafka/lib') };
  return startPrivate('kafka', dir, env, `127.0.0.1:${port}`);
}

/**
 * A PostgreSQL cluster of its own (Debian cluster `glp_faults` of infra.sh, on a free port): a test restarts it
 * without cutting the other test files' connections. The cluster stays defined (stopped) between runs so the next
 * start does not pay for initdb.
 */
export async function startPrivatePostgres(cluster = 'glp_faults'): Promise<PrivateInfra> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'glp-pg-'));
  const port = await freePort();
  // A throwaway cluster: durability off (PG_DURABILITY), as the tests' database trades it for speed.
  return startPrivate('pg', dir, { INFRA_STATE_DIR: dir, PG_CLUSTER: cluster, PG_PORT: String(port), PG_DURABILITY: 'off' }, `postgres://app:app@127.0.0.1:${port}/app`);
}
