// Runs the Helm binary that deploy/local/helm.sh installs into .tools/bin, isolated from the user's
// Helm configuration (HELM_CACHE_HOME/CONFIG/DATA in a throw-away directory). No cluster needed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
/** GLP_CHART_DIR points the tests at another copy of the chart (e.g. a fixture while testing the tests). */
export const CHART_DIR = process.env.GLP_CHART_DIR ?? path.resolve(__dirname, '..');
export const KUBE_VERSION = '1.34.0';
export const RELEASE = 'glp';
export const NAMESPACE = 'gitlab-projects';

let helmBin: string | undefined;
let helmHome: string | undefined;

export function helmPath(): string {
  helmBin ??= execFileSync('bash', [path.join(REPO_ROOT, 'deploy/local/helm.sh')], { encoding: 'utf8' }).trim();
  return helmBin;
}

function helmEnv(): NodeJS.ProcessEnv {
  if (!helmHome) {
    helmHome = mkdtempSync(path.join(tmpdir(), 'helm-home-'));
  }
  return {
    ...process.env,
    HELM_CACHE_HOME: path.join(helmHome, 'cache'),
    HELM_CONFIG_HOME: path.join(helmHome, 'config'),
    HELM_DATA_HOME: path.join(helmHome, 'data'),
  };
}

/** Removes the throw-away Helm home (call from afterAll). */
export function cleanupHelmHome(): void {
  if (helmHome) rmSync(helmHome, { recursive: true, force: true });
  helmHome = undefined;
}

export interface HelmResult { status: number; stdout: string; stderr: string }

export function helm(args: string[]): HelmResult {
  const r = spawnSync(helmPath(), args, { encoding: 'utf8', env: helmEnv(), maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `helm template` for the chart with the given value arguments (-f/--set); a failure is raised with Helm's stderr. */
export function template(valueArgs: string[]): string {
  const r = templateResult(valueArgs);
  if (r.status !== 0) throw new Error(`helm template ${valueArgs.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

export function templateResult(valueArgs: string[]): HelmResult {
  return helm(['template', RELEASE, CHART_DIR, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...valueArgs]);
}

export function lint(valueArgs: string[]): HelmResult {
  return helm(['lint', '--strict', CHART_DIR, '--kube-version', KUBE_VERSION, ...valueArgs]);
}
