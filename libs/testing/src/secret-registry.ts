import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The suite-wide secrets-in-logs check (issue #13). The jest global setup creates one directory per run and exports it
 * in GLP_SUITE_LOG_DIR; every stack appends what its services print to `<stack id>.log` there, and every secret the
 * harness sees (root tokens, service secrets, tokens and passwords that pass through `fetch` in e2e tests) is appended
 * to `secrets.jsonl`. The global teardown then searches every log line for every secret. Unset: nothing is written.
 */
export const SUITE_LOG_DIR_ENV = 'GLP_SUITE_LOG_DIR';
const REGISTRY = 'secrets.jsonl';
const MIN_LENGTH = 8;
const NOT_SECRET = new Set(['password', 'passw0rd', '[REDACTED]', '[FILTERED]', 'undefined', 'null', 'true', 'false']);

export function suiteLogDir(): string | undefined {
  return process.env[SUITE_LOG_DIR_ENV] || undefined;
}

/**
 * Worth searching for: long enough, not a placeholder, not a plain number/date, and not a low-entropy filler
 * ("        ", "aaaaaaaa": fuzzed passwords) that any log line may contain by chance.
 */
export function isSearchableSecret(value: string): boolean {
  return value.length >= MIN_LENGTH && !NOT_SECRET.has(value) && !/^[\d\s:.T-]+Z?$/.test(value) && new Set(value).size >= 4;
}

const registered = new Set<string>();

/** Remembers a secret for the end-of-run search (no-op outside a suite run, or for values not worth searching). */
export function registerSecret(value: string | undefined | null, source: string): void {
  const dir = suiteLogDir();
  if (!dir || !value || !isSearchableSecret(value) || registered.has(value)) return;
  registered.add(value);
  // One short line per append: O_APPEND keeps lines from parallel workers whole.
  appendFileSync(path.join(dir, REGISTRY), `${JSON.stringify({ value, source })}\n`, { mode: 0o600 });
}

/** The per-stack log file (undefined outside a suite run). */
export function stackLogFile(stackId: string): string | undefined {
  const dir = suiteLogDir();
  return dir && path.join(dir, `${stackId}.log`);
}

export interface SuiteLogCheck {
  secrets: number;
  logFiles: number;
  lines: number;
  /** How many secrets came from where (root tokens, service secrets, e2e requests, e2e responses). */
  sources: Record<string, number>;
  /** `<file>:<line>: <first 6 chars of the secret>… (<source>)`: never the whole secret. */
  leaks: string[];
}

/** Searches every stack log of the run for every registered secret. Undefined when no stack was started. */
export function checkSuiteLogs(dir: string): SuiteLogCheck | undefined {
  if (!existsSync(dir)) return undefined;
  const logFiles = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  if (!logFiles.length) return undefined;
  const secrets = new Map<string, string>();
  const registry = path.join(dir, REGISTRY);
  if (existsSync(registry)) {
    for (const line of readFileSync(registry, 'utf8').split('\n')) {
      if (!line) continue;
      const { value, source } = JSON.parse(line) as { value: string; source: string };
      if (isSearchableSecret(value) && !secrets.has(value)) secrets.set(value, source);
    }
  }
  let lines = 0;
  const leaks: string[] = [];
  for (const file of logFiles) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const fileLines = text.split('\n').filter((l) => l.length > 0);
    lines += fileLines.length;
    for (const [secret, source] of secrets) {
      if (!text.includes(secret)) continue;
      fileLines.forEach((l, i) => {
        if (l.includes(secret)) leaks.push(`${file}:${i + 1}: ${secret.slice(0, 6)}… (${source})`);
      });
    }
  }
  const sources: Record<string, number> = {};
  for (const source of secrets.values()) {
    const kind = source.replace(/^\S+ (?=root token|ACTOR_SECRET|HOOKS_SECRETS_KEY|GITLAB_ROOT_PASSWORD)/, 'stack ');
    sources[kind] = (sources[kind] ?? 0) + 1;
  }
  return { secrets: secrets.size, logFiles: logFiles.length, lines, sources, leaks };
}

/** The teardown's verdict: throws on a leak, and when the check would pass vacuously (no secret or no log line). */
export function assertNoSecretsInSuiteLogs(dir: string, log: (line: string) => void = console.log): SuiteLogCheck | undefined {
  const result = checkSuiteLogs(dir);
  if (!result) {
    log('secrets in logs: no stack was started, nothing to check');
    return undefined;
  }
  const summary = `secrets in logs: ${result.secrets} secrets × ${result.lines} log lines checked (${result.logFiles} stacks), ${result.leaks.length} found`;
  log(summary);
  log(`secrets in logs: by source ${Object.entries(result.sources).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  if (result.secrets === 0) throw new Error(`${summary}: no secret was registered, the check would pass vacuously (logs: ${dir})`);
  if (result.lines === 0) throw new Error(`${summary}: no log line was written, the check would pass vacuously (logs: ${dir})`);
  if (result.leaks.length) throw new Error(`${summary}; logs kept in ${dir}:\n${result.leaks.slice(0, 50).join('\n')}`);
  return result;
}
