// What the tests know about the chart beyond Kubernetes itself: value paths, labels, and who may call
// whom over gRPC (from each service's *_GRPC_ADDR settings in apps/<name>/src/config.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR } from './helm';

export const DEFAULT_VALUES = path.join(CHART_DIR, 'values.yaml');
export const ALL_ON_VALUES = path.join(CHART_DIR, 'ci/values-all-on.yaml');
/** PostgreSQL, Redis and Kafka in the release (the vendored subcharts), nothing external. */
export const BUNDLED_VALUES = path.join(CHART_DIR, 'ci/values-bundled-infra.yaml');

/** Values the chart requires (no default password is ever rendered); passed for the default-values render. */
export const KAFKA_SET = ['--set', 'kafka.brokers={kafka-0.kafka:9092}'];
export const REQUIRED_SETS = [
  ...KAFKA_SET,
  '--set-string', 'secrets.databaseUrl=postgres://glp:test-only@postgres:5432/glp',
  '--set-string', 'secrets.redisUrl=redis://:test-only@redis:6379',
  '--set-string', 'secrets.rootToken=test-only-root-token-0123456789',
  '--set-string', 'secrets.actorSecret=test-only-actor-secret-0123456789abcdef',
  '--set-string', 'secrets.hooksSecretsKey=test-only-hooks-key-0123456789abcdef',
  '--set-string', 'secrets.projectsSecretsKey=test-only-secrets-key-0123456789abcdef',
];
/** Sets `existingSecret` (the chart then renders no Secret and pods reference this name). */
export const EXISTING_SECRET_NAME = 'glp-external-secret';
export const EXISTING_SECRET_SET = [...KAFKA_SET, '--set-string', `secrets.existingSecret=${EXISTING_SECRET_NAME}`];

/** Which service a pod belongs to. */
export const COMPONENT_LABEL = 'app.kubernetes.io/component';

export const STATELESS = ['gateway', 'identity', 'projects', 'access-requests', 'hooks', 'webhook-dispatcher', 'push-rules'];
export const REPO_ADMIN = 'repo-admin';

/** gRPC callers of each service (the caller's config has the callee's *_GRPC_ADDR). */
export const GRPC_CALLERS: Record<string, string[]> = {
  identity: ['gateway', 'projects', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'push-rules'],
  projects: ['gateway', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'push-rules'],
  'access-requests': ['gateway'],
  'repo-admin': ['gateway', 'webhook-dispatcher'],
  hooks: ['gateway', 'webhook-dispatcher'],
  'webhook-dispatcher': ['hooks'],
  'push-rules': ['gateway', 'repo-admin'],
};
export const GRPC_PORTS: Record<string, number> = {
  identity: 50051, projects: 50052, 'access-requests': 50053, 'repo-admin': 50054, hooks: 50055,
  'webhook-dispatcher': 50056, 'push-rules': 50057,
};

/** Every in-cluster call the NetworkPolicies must allow, and only from these callers. */
export const CALLS: { svc: string; port: number; callers: string[] }[] = [
  ...Object.entries(GRPC_CALLERS).map(([svc, callers]) => ({ svc, port: GRPC_PORTS[svc], callers })),
  { svc: 'repo-admin', port: 8081, callers: ['gateway'] }, // git smart HTTP (REPO_ADMIN_HTTP_URL)
];

export function readValues(file: string): any {
  return parse(readFileSync(file, 'utf8')) ?? {};
}

/** Names of the repository storages a values file declares (repo-admin: one StatefulSet each). */
export function repoStorages(values: any): string[] {
  const list = values?.repoAdmin?.storages ?? [];
  return list.map((s: any) => (typeof s === 'string' ? s : s.name));
}

/** --set arguments declaring the given repository storages. */
export function storagesSet(names: string[]): string[] {
  const storages = names.map((name) => ({ name, size: '10Gi', storageClassName: '', accessModes: ['ReadWriteOnce'] }));
  return ['--set-json', `repoAdmin.storages=${JSON.stringify(storages)}`];
}

/** The stateless services whose `<key>.enabled` (autoscaling, pdb) is on in the merged values. */
export function servicesWith(values: any, key: 'autoscaling' | 'pdb'): string[] {
  return (values?.services ?? []).filter((s: any) => s?.[key]?.enabled).map((s: any) => s.name);
}

/**
 * Peak RSS (MB) of each service in a full `npm run bench:suite` on Node 24 (2026-11-24, 10k–1M projects, up to 32
 * connections; per-service RSS in the run's report.md). The default memory limits keep 25% above these.
 */
export const PEAK_RSS_MB: Record<string, number> = {
  gateway: 389, projects: 408, identity: 313, 'access-requests': 247, 'repo-admin': 221, 'webhook-dispatcher': 130, hooks: 125, 'push-rules': 124,
};
