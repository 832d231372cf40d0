import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { dockerReachable } from './docker-probe';

const run = promisify(execFile);

export interface InfraUrls {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  /** Where they came from, for logs. */
  source: 'env' | 'testcontainers' | 'local-processes';
}

export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** What the infrastructure is for: tests may trade durability for speed; benchmarks measure the durable setup. */
export type InfraPurpose = 'tests' | 'benchmarks';

interface Stoppable {
  stop(): Promise<unknown>;
}
// On globalThis: jest may load globalSetup and globalTeardown as separate module instances.
const g = globalThis as { __glpStartedContainers__?: Stoppable[] };
const started: Stoppable[] = (g.__glpStartedContainers__ ??= []);

function fromEnv(): InfraUrls | undefined {
  const { DATABASE_URL, REDIS_URL, KAFKA_BROKERS } = process.env;
  if (!DATABASE_URL || !REDIS_URL || !KAFKA_BROKERS) return undefined;
  return { databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, kafkaBrokers: KAFKA_BROKERS.split(','), source: 'env' };
}

async function fromTestcontainers(): Promise<InfraUrls> {
  // Imported lazily: testcontainers is only needed (and only loads) when an engine answers.
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const [pg, redis, kafka] = await Promise.all([
    new PostgreSqlContainer('postgres:15-alpine').withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=400']).start(),
    new RedisContainer('redis:7-alpine').start(),
    new KafkaContainer('confluentinc/cp-kafka:7.6.1').withKraft().start(),
  ]);
  started.push(pg, redis, kafka);
  return {
    databaseUrl: pg.getConnectionUri(),
    redisUrl: redis.getConnectionUrl(),
    kafkaBrokers: [`${kafka.getHost()}:${kafka.getMappedPort(9093)}`],
    source: 'testcontainers',
  };
}

/**
 * Runs `deploy/local/infra.sh up` (idempotent: a no-op when everything already answers) and parses its output. Tests
 * get the tests' database (commits not waiting for their WAL flush); benchmarks the durable one `npm start` uses, so
 * that a write's figure includes its flush.
 */
export async function fromLocalProcesses(purpose: InfraPurpose = 'tests'): Promise<InfraUrls> {
  const script = path.join(REPO_ROOT, 'deploy/local/infra.sh');
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [script, 'up'], { maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60 * 1000 }));
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`no DATABASE_URL/REDIS_URL/KAFKA_BROKERS, no Docker engine, and ${script} up failed:\n${e.stderr ?? e.message}`);
  }
  const vars = Object.fromEntries(
    stdout
      .split('\n')
      .map((l) => l.trim().split('='))
      .filter((kv) => kv.length >= 2)
      .map(([k, ...v]) => [k, v.join('=')]),
  );
  return {
    databaseUrl: purpose === 'tests' ? vars.TEST_DATABASE_URL ?? vars.DATABASE_URL : vars.DATABASE_URL,
    redisUrl: vars.REDIS_URL,
    kafkaBrokers: String(vars.KAFKA_BROKERS).split(','),
    source: 'local-processes',
  };
}

/**
 * PostgreSQL, Redis and Kafka for tests: from the environment when all three
 * URLs are set; from testcontainers when a Docker engine answers; otherwise
 * from local processes started by deploy/local/infra.sh.
 */
export async function provideInfra(purpose: InfraPurpose = 'tests'): Promise<InfraUrls> {
  return fromEnv() ?? ((await dockerReachable()) ? fromTestcontainers() : fromLocalProcesses(purpose));
}

export async function stopProvidedInfra(): Promise<void> {
  await Promise.all(started.splice(0).map((c) => c.stop()));
}

/** The URLs a global setup exported; throws a clear message when a test runs without one. */
export function infraFromEnv(): InfraUrls {
  const urls = fromEnv();
  if (!urls) throw new Error('DATABASE_URL, REDIS_URL and KAFKA_BROKERS must be set (jest globalSetup provides them)');
  return urls;
}
