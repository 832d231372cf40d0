// The optional in-release PostgreSQL, Redis and Kafka (Bitnami's charts, vendored in charts/gitlab-projects/charts):
// vendored and pinned, wired into the services' URLs, reachable only from the services that use them, never rendered
// with a default password, and absent unless enabled. No cluster: helm + the rendered manifests.
import { BUNDLED_VALUES, COMPONENT_LABEL, DEFAULT_VALUES, REQUIRED_SETS, readValues } from './chart-contract';
import { CHART_DIR, RELEASE, cleanupHelmHome, helm, template, templateResult } from './helm';
import { Obj, hasPods, ofKind, parseManifests, podTemplateLabels, selects } from './manifests';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

jest.setTimeout(120_000);
afterAll(cleanupHelmHome);

const PART_OF = 'app.kubernetes.io/part-of';

/** Which of our components use each piece of infrastructure (the chart's glp.topology `infra`). */
const USERS: Record<string, { chart: string; port: number; service: string; users: string[] }> = {
  postgres: {
    chart: 'postgresql', port: 5432, service: `${RELEASE}-postgresql`,
    users: ['access-requests', 'hooks', 'identity', 'migrations', 'projects', 'push-rules', 'repo-admin', 'webhook-dispatcher'],
  },
  redis: { chart: 'redis', port: 6379, service: `${RELEASE}-redis-master`, users: ['gateway', 'identity', 'projects'] },
  kafka: {
    chart: 'kafka', port: 9092, service: `${RELEASE}-kafka`,
    users: ['access-requests', 'hooks', 'identity', 'projects', 'push-rules', 'repo-admin', 'webhook-dispatcher'],
  },
};

let objs: Obj[] = [];
beforeAll(() => {
  objs = parseManifests(template(['-f', BUNDLED_VALUES]));
});

const ours = (o: Obj) => podTemplateLabels(o)[PART_OF] === 'gitlab-projects';
const subchartPods = (chart: string) => objs.filter((o) => hasPods(o) && podTemplateLabels(o)['app.kubernetes.io/name'] === chart);
/** Our components whose pods a selector matches. */
const oursSelected = (sel: any) =>
  [...new Set(objs.filter((o) => hasPods(o) && ours(o) && selects(sel, podTemplateLabels(o))).map((o) => podTemplateLabels(o)[COMPONENT_LABEL]))].sort();
const secretValue = (name: string, key: string) => {
  const s = ofKind(objs, 'Secret').find((x) => x.metadata.name === name);
  if (!s) throw new Error(`no Secret ${name}`);
  return s.stringData?.[key] ?? Buffer.from(s.data?.[key] ?? '', 'base64').toString();
};

test('the three subcharts are vendored at the versions Chart.yaml pins (helm dependency list: ok)', () => {
  const chart = parse(readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8'));
  const deps = (chart.dependencies ?? []).map((d: any) => `${d.name}-${d.version}.tgz`);
  expect(deps).toEqual(['postgresql-17.1.1.tgz', 'redis-23.1.1.tgz', 'kafka-32.4.4.tgz']);
  for (const f of deps) expect({ f, vendored: existsSync(path.join(CHART_DIR, 'charts', f)) }).toEqual({ f, vendored: true });
  const r = helm(['dependency', 'list', CHART_DIR]);
  expect(r.status).toBe(0);
  const rows = r.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
  expect(rows.map(([name, version, , status]) => `${name} ${version} ${status}`)).toEqual(['postgresql 17.1.1 ok', 'redis 23.1.1 ok', 'kafka 32.4.4 ok']);
});

test('with default values none of them is rendered', () => {
  const def = parseManifests(template(REQUIRED_SETS));
  expect(def.filter((o) => hasPods(o) && !ours(o)).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([]);
  expect(readValues(DEFAULT_VALUES)).toMatchObject({ postgresql: { enabled: false }, redis: { enabled: false }, kafka: { enabled: false } });
});

test('the services are pointed at them: DATABASE_URL, REDIS_URL (passwords percent-encoded) and KAFKA_BROKERS', () => {
  const values = readValues(BUNDLED_VALUES);
  const db = new URL(secretValue(`${RELEASE}-gitlab-projects-secrets`, 'DATABASE_URL'));
  expect([db.protocol, db.hostname, db.port, db.pathname]).toEqual(['postgres:', USERS.postgres.service, '5432', '/gitlab_projects']);
  expect([decodeURIComponent(db.username), decodeURIComponent(db.password)]).toEqual(['gitlab_projects', values.postgresql.auth.password]);
  expect(secretValue(`${RELEASE}-gitlab-projects-migrations`, 'DATABASE_URL')).toBe(db.href);
  const redis = new URL(secretValue(`${RELEASE}-gitlab-projects-secrets`, 'REDIS_URL'));
  expect([redis.protocol, redis.hostname, redis.port, decodeURIComponent(redis.password)]).toEqual(['redis:', USERS.redis.service, '6379', values.redis.auth.password]);
  const config = ofKind(objs, 'ConfigMap').find((c) => c.metadata.name === `${RELEASE}-gitlab-projects-config`)!;
  expect(config.data.KAFKA_BROKERS).toBe(`${USERS.kafka.service}:9092`);
  // The subcharts are configured with the same credentials (their own Secrets).
  expect(secretValue(`${RELEASE}-postgresql`, 'password')).toBe(values.postgresql.auth.password);
  expect(secretValue(`${RELEASE}-redis`, 'redis-password')).toBe(values.redis.auth.password);
});

test.each(Object.entries(USERS))('%s: its Service has the port and selects its pods', (_infra, u) => {
  const svc = ofKind(objs, 'Service').find((s) => s.metadata.name === u.service);
  expect(svc?.spec.ports.map((p: any) => p.port)).toContain(u.port);
  const pods = subchartPods(u.chart);
  expect(pods.length).toBeGreaterThan(0);
  expect(pods.some((p) => selects({ matchLabels: svc!.spec.selector }, podTemplateLabels(p)))).toBe(true);
});

test.each(Object.entries(USERS))('%s: reachable only from the services that use it, whose egress allows it', (infra, u) => {
  const pods = subchartPods(u.chart);
  const policies = ofKind(objs, 'NetworkPolicy').filter((p) => pods.some((w) => selects(p.spec.podSelector, podTemplateLabels(w))));
  expect(policies.length).toBeGreaterThan(0);
  const allowed = new Set<string>();
  const failures: string[] = [];
  for (const p of policies)
    for (const rule of p.spec.ingress ?? []) {
      if (!(rule.ports ?? []).some((x: any) => x.port === u.port) && rule.ports?.length) continue;
      if (!rule.from?.length) { failures.push(`${p.metadata.name}: port ${u.port} open to everyone`); continue; }
      for (const peer of rule.from) {
        if (peer.namespaceSelector || peer.ipBlock) failures.push(`${p.metadata.name}: a peer outside the namespace: ${JSON.stringify(peer)}`);
        oursSelected(peer.podSelector).forEach((c) => allowed.add(c));
      }
    }
  expect(failures).toEqual([]);
  expect([...allowed].sort()).toEqual(u.users);
  // Each user's own NetworkPolicy lets it out to these pods on that port.
  for (const user of u.users) {
    const mine = objs.filter((o) => hasPods(o) && ours(o) && podTemplateLabels(o)[COMPONENT_LABEL] === user);
    expect({ user, pods: mine.length > 0 }).toEqual({ user, pods: true });
    for (const w of mine) {
      const egress = ofKind(objs, 'NetworkPolicy').filter((p) => selects(p.spec.podSelector, podTemplateLabels(w)) && (p.spec.policyTypes ?? []).includes('Egress'));
      const ok = egress.some((p) => (p.spec.egress ?? []).some((rule: any) => (rule.ports ?? []).some((x: any) => x.port === u.port) &&
        (rule.to ?? []).some((peer: any) => pods.some((pod) => selects(peer.podSelector, podTemplateLabels(pod))))));
      expect({ infra, from: w.metadata.name, ok }).toEqual({ infra, from: w.metadata.name, ok: true });
    }
  }
});

test("Kafka's internal topics and the services' topics fit its node count (else no consumer group starts)", () => {
  const nodes = ofKind(objs, 'StatefulSet').filter((s) => podTemplateLabels(s)['app.kubernetes.io/name'] === 'kafka')
    .reduce((n, s) => n + (s.spec.replicas ?? 1), 0);
  expect(nodes).toBeGreaterThan(0);
  const conf = ofKind(objs, 'ConfigMap').filter((c) => c.data?.['server.properties']).map((c) => c.data['server.properties'] as string);
  expect(conf.length).toBeGreaterThan(0);
  for (const text of conf) {
    const props = Object.fromEntries(text.split('\n').map((l) => l.split('=')).filter((kv) => kv.length === 2).map(([k, v]) => [k.trim(), v.trim()]));
    // Kafka's defaults: 3 for both replication factors, 2 for the transaction log's min ISR.
    expect({
      offsets: Number(props['offsets.topic.replication.factor'] ?? 3) <= nodes,
      transactions: Number(props['transaction.state.log.replication.factor'] ?? 3) <= nodes,
      transactionsIsr: Number(props['transaction.state.log.min.isr'] ?? 2) <= nodes,
    }).toEqual({ offsets: true, transactions: true, transactionsIsr: true });
  }
  const config = ofKind(objs, 'ConfigMap').find((c) => c.metadata.name === `${RELEASE}-gitlab-projects-config`)!;
  expect(Number(config.data.KAFKA_REPLICATION_FACTOR)).toBeLessThanOrEqual(nodes);
  expect(Number(config.data.KAFKA_MIN_INSYNC_REPLICAS)).toBeLessThanOrEqual(Number(config.data.KAFKA_REPLICATION_FACTOR));
});

test('PostgreSQL admits every pool at its HPA maximum (max_connections)', () => {
  const conf = ofKind(objs, 'ConfigMap').find((c) => c.metadata.name === `${RELEASE}-postgresql-extended-configuration`);
  const max = Number(/^\s*max_connections\s*=\s*(\d+)/m.exec(conf?.data?.['override.conf'] ?? '')?.[1] ?? 100); // PostgreSQL's default: 100
  const reserved = 3; // superuser_reserved_connections
  let budget = 0;
  const parts: string[] = [];
  for (const w of objs.filter((o) => hasPods(o) && ours(o) && USERS.postgres.users.includes(podTemplateLabels(o)[COMPONENT_LABEL]))) {
    const hpa = ofKind(objs, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef?.name === w.metadata.name);
    const pods = hpa ? hpa.spec.maxReplicas : w.kind === 'Job' ? 1 : (w.spec.replicas ?? 1);
    const env = [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].flatMap((c: any) => c.env ?? []);
    const pool = Number(env.find((e: any) => e.name === 'DB_POOL_MAX')?.value ?? 10) // the services' default
      // projects' second pool, for the listings read with generic plans (its default: 4)
      + (podTemplateLabels(w)[COMPONENT_LABEL] === 'projects' ? Number(env.find((e: any) => e.name === 'DB_GENERIC_PLAN_POOL_MAX')?.value ?? 4) : 0);
    budget += pods * pool;
    parts.push(`${w.metadata.name} ${pods}×${pool}`);
  }
  console.log(`[chart] PostgreSQL connections at every HPA maximum: ${budget} (${parts.join(', ')}); max_connections ${max}`);
  expect(budget).toBeGreaterThan(0);
  expect(budget).toBeLessThanOrEqual(max - reserved);
});

test.each([
  ['postgresql', /postgresql\.auth\.password is required with postgresql\.enabled/],
  ['redis', /redis\.auth\.password is required with redis\.enabled/],
])('%s enabled without a password: a clear failure, no Secret rendered (never a default password)', (chart, message) => {
  const r = templateResult(['-f', BUNDLED_VALUES, '--set-string', `${chart}.auth.password=`]);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(message);
  expect(r.stdout).not.toMatch(/kind: Secret/);
});

test('kafka enabled supplies the brokers; neither brokers nor kafka.enabled is a clear failure', () => {
  const r = templateResult(['-f', BUNDLED_VALUES, '--set', 'kafka.enabled=false']);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toMatch(/kafka\.brokers is required \(e\.g\. \[kafka:9092\]\), or kafka\.enabled/);
});
