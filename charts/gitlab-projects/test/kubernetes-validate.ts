// Strict offline schema validation of rendered manifests with kubernetes-validate (PyPI), installed
// into <repo>/.venv by deploy/local/python-clients.sh (idempotent; run here when it is missing).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helm';

const BIN = path.join(REPO_ROOT, '.venv/bin/kubernetes-validate');

export interface ValidationReport {
  status: number;
  lines: string[];
  /** `WARN … Couldn't find schema for kind K with api version G/V` → "G/V K". */
  missingSchemas: string[];
  /** WARN/ERROR/FATAL lines other than a missing schema. */
  problems: string[];
  passed: number;
}

export function kubeValidate(manifests: string, kubeMinor = '1.34'): ValidationReport {
  if (!existsSync(BIN)) execFileSync('bash', [path.join(REPO_ROOT, 'deploy/local/python-clients.sh')], { stdio: 'inherit' });
  const r = spawnSync(BIN, ['-k', kubeMinor, '--strict', '-'], { input: manifests, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  const missingSchemas: string[] = [];
  const problems: string[] = [];
  let passed = 0;
  for (const line of lines) {
    const missing = /^WARN .*Couldn't find schema for kind (\S+) with api version (\S+) /.exec(line);
    if (missing) missingSchemas.push(`${missing[2]} ${missing[1]}`);
    else if (/^(WARN|ERROR|FATAL)\b/.test(line)) problems.push(line);
    else if (/^INFO .* passed for resource /.test(line)) passed++;
    else if (!/^INFO\b/.test(line)) problems.push(line); // tracebacks and anything unexpected
  }
  return { status: r.status ?? -1, lines, missingSchemas, problems, passed };
}
