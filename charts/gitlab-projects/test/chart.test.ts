// charts/gitlab-projects: helm lint, strict schema validation of every rendered manifest, and the
// properties the platform depends on (probes, security context, scaling, storages, secrets,
// network policies, migrations hook). No cluster: helm template + kubernetes-validate only.
import {
  ALL_ON_VALUES, BUNDLED_VALUES, COMPONENT_LABEL, DEFAULT_VALUES, EXISTING_SECRET_NAME, EXISTING_SECRET_SET, CALLS,
  KAFKA_SET, PEAK_RSS_MB, REPO_ADMIN, REQUIRED_SETS, STATELESS, readValues, repoStorages, servicesWith, storagesSet,
} from './chart-contract';
import { cleanupHelmHome, lint, template, templateResult } from './helm';
import { kubeValidate } from './kubernetes-validate';
import { Obj, countByKind, hasPods, isEmptySelector, isWorkload, ofKind, parseManifests, podSpec, podTemplateLabels, selects } from './manifests';

jest.setTimeout(120_000);
afterAll(cleanupHelmHome);

/** API groups that are CRDs (no bundled schema); the only allowed "Couldn't find schema". */
const CRD_GROUPS = ['monitoring.coreos.com'];

const CASES: { name: string; args: string[]; valuesFile: string }[] = [
  { name: 'default values', args: REQUIRED_SETS, valuesFile: DEFAULT_VALUES },
  { name: 'ci/values-all-on.yaml', args: ['-f', ALL_ON_VALUES], valuesFile: ALL_ON_VALUES },
  { name: 'ci/values-bundled-infra.yaml', args: ['-f', BUNDLED_VALUES], valuesFile: BUNDLED_VALUES },
];

const rendered = new Map<string, { text: string; objs: Obj[] }>();
function render(c: (typeof CASES)[number]) {
  let r = rendered.get(c.name);
  if (!r) {
    const text = template(c.args);
    r = { text, objs: parseManifests(text) };
    rendered.set(c.name, r);
  }
  return r;
}

const id = (o: Obj) => `${o.kind}/${o.metadata.name}`;
const component = (o: Obj) => podTemplateLabels(o)[COMPONENT_LABEL];
const workloadsOf = (objs: Obj[], comp: string) => objs.filter((o) => isWorkload(o) && component(o) === comp);
/** Components whose pods (Deployments, StatefulSets, Jobs) a pod selector matches (namespace-local). */
const componentsSelected = (objs: Obj[], sel: any) =>
  [...new Set(objs.filter((o) => hasPods(o) && selects(sel, podTemplateLabels(o))).map(component))].sort();

describe.each(CASES)('chart with $name', (c) => {
  test('helm lint --strict passes', () => {
    const r = lint(c.args);
    expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
  });

  test('renders; prints the object count', () => {
    const { objs } = render(c);
    expect(objs.length).toBeGreaterThan(0);
    console.log(`[chart] ${c.name}: ${objs.length} objects ${JSON.stringify(countByKind(objs))}`);
  });

  test('every manifest passes kubernetes-validate -k 1.34 --strict; only CRDs lack a schema', () => {
    const { text, objs } = render(c);
    const report = kubeValidate(text);
    expect(report.problems).toEqual([]);
    expect(report.status).toBe(0);
    const crds = objs.filter((o) => CRD_GROUPS.includes(o.apiVersion.split('/')[0]));
    expect([...report.missingSchemas].sort()).toEqual(crds.map((o) => `${o.apiVersion} ${o.kind}`).sort());
    expect(report.passed).toBe(objs.length - crds.length);
  });

  test('every container: probes, requests and limits, non-root read-only with no privileges', () => {
    const { objs } = render(c);
    const pods = objs.filter(hasPods);
    expect(pods.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const o of pods) {
      const spec = podSpec(o);
      const all = [...(spec.initContainers ?? []).map((x: any) => ['init', x]), ...spec.containers.map((x: any) => ['main', x])];
      for (const [role, ct] of all) {
        const where = `${id(o)} container ${ct.name}`;
        if (role === 'main' && isWorkload(o))
          for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (!ct[p]) failures.push(`${where}: no ${p}`);
        const res = ct.resources ?? {};
        if (!res.requests?.cpu || !res.requests?.memory) failures.push(`${where}: resources.requests needs cpu and memory`);
        if (!res.limits?.memory) failures.push(`${where}: resources.limits needs memory`);
        const sc = ct.securityContext ?? {};
        const runAsNonRoot = sc.runAsNonRoot ?? spec.securityContext?.runAsNonRoot;
        if (runAsNonRoot !== true) failures.push(`${where}: runAsNonRoot is not true`);
        if (sc.readOnlyRootFilesystem !== true) failures.push(`${where}: readOnlyRootFilesystem is not true`);
        if (sc.allowPrivilegeEscalation !== false) failures.push(`${where}: allowPrivilegeEscalation is not false`);
        if (!(sc.capabilities?.drop ?? []).includes('ALL')) failures.push(`${where}: capabilities.drop lacks ALL`);
        if (sc.privileged === true) failures.push(`${where}: privileged`);
      }
    }
    expect(failures).toEqual([]);
  });

  // values-all-on: every service has both. Default values: an HPA / a PDB exactly where the values enable one
  // (K1's defaults leave them off for single-replica services: a minAvailable-1 PDB would block node drains).
  test('every stateless service: one Deployment, an HPA targeting it by name, a PDB selecting only its pods', () => {
    const { objs } = render(c);
    const values = { ...readValues(DEFAULT_VALUES), ...readValues(c.valuesFile) };
    const allOn = c.valuesFile === ALL_ON_VALUES;
    const wantHpa = allOn ? STATELESS : servicesWith(values, 'autoscaling');
    const wantPdb = allOn ? STATELESS : servicesWith(values, 'pdb');
    if (allOn) expect({ autoscaling: servicesWith(values, 'autoscaling'), pdb: servicesWith(values, 'pdb') }).toEqual({ autoscaling: STATELESS, pdb: STATELESS });
    const failures: string[] = [];
    for (const svc of STATELESS) {
      const deps = objs.filter((o) => o.kind === 'Deployment' && component(o) === svc);
      if (deps.length !== 1) { failures.push(`${svc}: ${deps.length} Deployments`); continue; }
      const dep = deps[0];
      const hpas = ofKind(objs, 'HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef?.name === dep.metadata.name);
      const nHpa = wantHpa.includes(svc) ? 1 : 0;
      if (hpas.length !== nHpa) failures.push(`${svc}: ${hpas.length} HPAs target Deployment ${dep.metadata.name}, want ${nHpa}`);
      for (const h of hpas) {
        const ref = h.spec.scaleTargetRef;
        if (ref.kind !== 'Deployment' || ref.apiVersion !== 'apps/v1') failures.push(`${id(h)}: targets ${ref.apiVersion} ${ref.kind}`);
        if (!(h.spec.minReplicas >= 1 && h.spec.maxReplicas >= h.spec.minReplicas)) failures.push(`${id(h)}: bad min/max replicas`);
        if (dep.spec.replicas !== undefined) failures.push(`${id(dep)}: sets spec.replicas although an HPA owns it`);
      }
      if (!selects(dep.spec.selector, podTemplateLabels(dep))) failures.push(`${id(dep)}: selector does not match its pod template`);
      const pdbs = ofKind(objs, 'PodDisruptionBudget').filter((p) => selects(p.spec.selector, podTemplateLabels(dep)));
      const nPdb = wantPdb.includes(svc) ? 1 : 0;
      if (pdbs.length !== nPdb) failures.push(`${svc}: ${pdbs.length} PDBs select its pods, want ${nPdb}`);
      for (const p of pdbs) {
        const others = componentsSelected(objs, p.spec.selector).filter((x) => x !== svc);
        if (others.length) failures.push(`${id(p)}: also selects ${others.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('repo-admin: one StatefulSet per storage, each with a volumeClaimTemplate and its own pods', () => {
    const { objs } = render(c);
    const storages = repoStorages({ ...readValues(DEFAULT_VALUES), ...readValues(c.valuesFile) });
    expect(storages.length).toBeGreaterThan(0);
    const sets = workloadsOf(objs, REPO_ADMIN);
    expect(sets.map((s) => s.kind)).toEqual(storages.map(() => 'StatefulSet'));
    for (const s of sets) {
      expect(s.spec.volumeClaimTemplates?.length ?? 0).toBeGreaterThan(0);
      expect(s.spec.serviceName).toBeTruthy();
      const others = sets.filter((x) => x !== s && selects(s.spec.selector, podTemplateLabels(x)));
      expect(others.map(id)).toEqual([]); // storages never share pods
    }
    for (const name of storages) expect(JSON.stringify(sets.map((s) => [s.metadata.name, podSpec(s).containers]))).toContain(name);
  });

  // Regular migrations before any rollout; with the in-release PostgreSQL the install hook is post-install (the database
  // does not exist before the release's objects do), after an init container that waits for it. Post-deployment
  // migrations after the rollout (ROLE=migrate-post), after the regular ones at install. Their hook Secret is there
  // for each.
  test('the migrations Job runs as a pre-install (post-install with the in-release PostgreSQL),pre-upgrade hook, the post-migrations Job after the rollout', () => {
    const { objs } = render(c);
    const bundled = readValues(c.valuesFile).postgresql?.enabled === true;
    const hooksOf = (o: Obj) => (o.metadata.annotations?.['helm.sh/hook'] ?? '').split(',').map((s: string) => s.trim()).sort();
    const weightOf = (o: Obj) => Number(o.metadata.annotations?.['helm.sh/hook-weight']);
    const jobs = ofKind(objs, 'Job').filter((j) => /migrat/.test(j.metadata.name));
    const regular = jobs.find((j) => /-migrations$/.test(j.metadata.name) && !/post-migrations$/.test(j.metadata.name))!;
    const post = jobs.find((j) => /-post-migrations$/.test(j.metadata.name))!;
    expect(jobs).toHaveLength(2);
    expect(hooksOf(regular)).toEqual(bundled ? ['post-install', 'pre-upgrade'] : ['pre-install', 'pre-upgrade']);
    expect(hooksOf(post)).toEqual(['post-install', 'post-upgrade']);
    expect(weightOf(post)).toBeGreaterThan(weightOf(regular)); // at install (bundled), the regular ones first
    const roles = (j: Obj) => [...(podSpec(j).initContainers ?? []), ...podSpec(j).containers]
      .filter((x: any) => x.name !== 'wait-for-postgresql')
      .map((x: any) => [x.args ?? [], x.env.find((e: any) => e.name === 'ROLE')?.value]);
    expect(new Set(roles(regular).map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify([[], 'migrate'])]));
    expect(new Set(roles(post).map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify([[], 'migrate-post'])]));
    for (const j of jobs) {
      const inits = (podSpec(j).initContainers ?? []).map((x: any) => x.name);
      expect(inits[0] === 'wait-for-postgresql').toBe(bundled);
    }
    for (const s of ofKind(objs, 'Secret').filter((x) => x.metadata.annotations?.['helm.sh/hook'])) {
      expect(hooksOf(s)).toEqual([...new Set([...hooksOf(regular), ...hooksOf(post)])].sort());
      expect(weightOf(s)).toBeLessThan(weightOf(regular));
    }
  });

  test('NetworkPolicies select the pods they protect; gRPC/git ingress only from the allowed callers, whose egress allows it', () => {
    const { objs } = render(c);
    const policies = ofKind(objs, 'NetworkPolicy');
    if (c.valuesFile === ALL_ON_VALUES) expect(policies.length).toBeGreaterThan(0);
    if (policies.length === 0) return;
    const failures: string[] = [];
    for (const p of policies) {
      const sel = p.spec.podSelector;
      const hasIngressRules = (p.spec.ingress ?? []).length > 0;
      if (isEmptySelector(sel) && hasIngressRules) failures.push(`${id(p)}: empty podSelector with allow rules`);
      if (!isEmptySelector(sel) && componentsSelected(objs, sel).length === 0) failures.push(`${id(p)}: selects no pods`);
    }
    const policiesOf = (labels: Record<string, string>, type: 'Ingress' | 'Egress') =>
      policies.filter((p) => selects(p.spec.podSelector, labels) && (p.spec.policyTypes ?? ['Ingress']).includes(type));
    for (const { svc, port, callers } of CALLS) {
      const ws = workloadsOf(objs, svc);
      if (ws.length === 0) { failures.push(`${svc}: no workload`); continue; }
      for (const w of ws) {
        const labels = podTemplateLabels(w);
        const portNames = podSpec(w).containers.flatMap((ct: any) => (ct.ports ?? []).filter((x: any) => x.containerPort === port).map((x: any) => x.name));
        const covers = (rule: any) =>
          !rule.ports?.length || rule.ports.some((x: any) => x.port === undefined || x.port === port || portNames.includes(x.port));
        const mine = policiesOf(labels, 'Ingress');
        if (mine.length === 0) { failures.push(`${id(w)}: no NetworkPolicy selects its pods`); continue; }
        const allowed = new Set<string>();
        for (const p of mine)
          for (const rule of (p.spec.ingress ?? []).filter(covers)) {
            if (!rule.from?.length) { failures.push(`${id(p)}: port ${port} open to everyone`); continue; }
            for (const peer of rule.from) {
              if (!peer.podSelector || peer.ipBlock || peer.namespaceSelector) {
                failures.push(`${id(p)}: port ${port} open to a peer that is not a same-namespace podSelector: ${JSON.stringify(peer)}`);
                continue;
              }
              const comps = componentsSelected(objs, peer.podSelector);
              for (const x of comps) allowed.add(x);
              const bad = comps.filter((x) => !callers.includes(x));
              if (bad.length) failures.push(`${id(p)}: ${svc} port ${port} reachable from ${bad.join(', ')}`);
              if (comps.length === 0) failures.push(`${id(p)}: peer ${JSON.stringify(peer.podSelector)} matches no pods`);
            }
          }
        const missing = callers.filter((x) => !allowed.has(x));
        if (missing.length) failures.push(`${id(w)}: callers ${missing.join(', ')} cannot reach port ${port}`);
        // The callers' own egress policies (if any) must let the call out to these pods.
        for (const caller of callers)
          for (const cw of workloadsOf(objs, caller)) {
            const egress = policiesOf(podTemplateLabels(cw), 'Egress');
            if (egress.length === 0) continue;
            const ok = egress.some((p) => (p.spec.egress ?? []).some((rule: any) => covers(rule) &&
              (!rule.to?.length || rule.to.some((peer: any) => !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector, labels)))));
            if (!ok) failures.push(`${id(cw)}: egress to ${id(w)} port ${port} not allowed`);
          }
      }
    }
    expect(failures).toEqual([]);
  });
});

const MI = 1024 * 1024;
const bytes = (q: string) => {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(q);
  if (!m) throw new Error(`unparsed quantity ${q}`);
  const unit = { Ki: 1024, Mi: MI, Gi: 1024 * MI, K: 1e3, M: 1e6, G: 1e9 }[m[2] as 'Ki'] ?? 1;
  return Number(m[1]) * unit;
};

test('default memory limits keep 25% above each service\'s peak RSS under the benchmark suite', () => {
  const objs = parseManifests(template(REQUIRED_SETS));
  const failures: string[] = [];
  for (const [svc, peakMb] of Object.entries(PEAK_RSS_MB)) {
    const ws = objs.filter((o) => isWorkload(o) && podTemplateLabels(o)[COMPONENT_LABEL] === svc);
    if (ws.length === 0) failures.push(`${svc}: no workload`);
    for (const w of ws) {
      const limit = podSpec(w).containers[0].resources?.limits?.memory;
      if (!limit || bytes(limit) < 1.25 * peakMb * 1e6) failures.push(`${id(w)}: limit ${limit} < 1.25 × ${peakMb} MB`);
    }
  }
  expect(failures).toEqual([]);
});

describe('secrets', () => {
  test('without the required values helm fails with a clear message (never a default password)', () => {
    const r = templateResult(KAFKA_SET);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/secrets\.\w+ is required \(or set secrets\.existingSecret[,)]/);
    expect(r.stdout).not.toMatch(/kind: Secret/);
  });

  test('no rendered Secret holds an empty value', () => {
    const objs = parseManifests(template(REQUIRED_SETS));
    for (const s of ofKind(objs, 'Secret')) {
      for (const [k, v] of Object.entries({ ...(s.data ?? {}), ...(s.stringData ?? {}) }))
        expect({ key: `${s.metadata.name}.${k}`, empty: String(v ?? '').trim() === '' }).toEqual({ key: `${s.metadata.name}.${k}`, empty: false });
    }
  });

  test('with existingSecret: no Secret rendered and every pod references that Secret', () => {
    const objs = parseManifests(template(EXISTING_SECRET_SET));
    expect(ofKind(objs, 'Secret').map(id)).toEqual([]);
    const pods = objs.filter((o) => isWorkload(o) || o.kind === 'Job');
    expect(pods.length).toBeGreaterThan(7);
    const refs = new Set<string>();
    for (const o of pods) {
      const spec = podSpec(o);
      const own = new Set<string>();
      for (const ct of [...(spec.initContainers ?? []), ...spec.containers]) {
        for (const e of ct.env ?? []) if (e.valueFrom?.secretKeyRef) own.add(e.valueFrom.secretKeyRef.name);
        for (const e of ct.envFrom ?? []) if (e.secretRef) own.add(e.secretRef.name);
      }
      for (const v of spec.volumes ?? []) if (v.secret) own.add(v.secret.secretName);
      expect({ pod: id(o), refs: [...own] }).toEqual({ pod: id(o), refs: [EXISTING_SECRET_NAME] });
      own.forEach((r) => refs.add(r));
    }
    expect([...refs]).toEqual([EXISTING_SECRET_NAME]);
  });
});

describe('repo-admin storages', () => {
  test('three storages render three StatefulSets', () => {
    const names = ['default', 'storage-2', 'storage-3'];
    const objs = parseManifests(template([...REQUIRED_SETS, ...storagesSet(names)]));
    const sets = workloadsOf(objs, REPO_ADMIN);
    expect(sets.length).toBe(3);
    expect(sets.every((s) => s.kind === 'StatefulSet' && s.spec.volumeClaimTemplates?.length > 0)).toBe(true);
  });
});
