// Parsing rendered manifests and the selector logic the assertions need.
import { parseAllDocuments } from 'yaml';

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  [k: string]: any;
};
export type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };

export function parseManifests(text: string): Obj[] {
  const out: Obj[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`invalid YAML in rendered output: ${doc.errors[0].message}`);
    const o = doc.toJS();
    if (o && typeof o === 'object') out.push(o as Obj);
  }
  return out;
}

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet'];
export const isWorkload = (o: Obj) => WORKLOAD_KINDS.includes(o.kind);
/** Objects that run pods: workloads and (Cron)Jobs. */
export const hasPods = (o: Obj) => isWorkload(o) || o.kind === 'Job' || o.kind === 'CronJob';
export const ofKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);

export function podTemplateLabels(o: Obj): Record<string, string> {
  const t = o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template : o.spec?.template;
  return t?.metadata?.labels ?? {};
}

export function podSpec(o: Obj): any {
  return o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template?.spec : o.spec?.template?.spec;
}

/** Kubernetes label-selector semantics; an empty selector matches everything, a missing one nothing. */
export function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const ok =
      e.operator === 'In' ? has && (e.values ?? []).includes(labels[e.key]) :
      e.operator === 'NotIn' ? !has || !(e.values ?? []).includes(labels[e.key]) :
      e.operator === 'Exists' ? has :
      e.operator === 'DoesNotExist' ? !has : false;
    if (!ok) return false;
  }
  return true;
}

export const isEmptySelector = (s: Selector | undefined) =>
  !!s && Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;

export function countByKind(objs: Obj[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of objs) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
