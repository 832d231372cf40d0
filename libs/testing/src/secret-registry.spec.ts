import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertNoSecretsInSuiteLogs, isSearchableSecret, registerSecret, SUITE_LOG_DIR_ENV } from './secret-registry';

describe('suite-wide secrets-in-logs check', () => {
  let dir: string;
  const lines: string[] = [];
  const log = (l: string) => lines.push(l);
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'glp-suite-logs-spec-'));
    process.env[SUITE_LOG_DIR_ENV] = dir;
    lines.length = 0;
  });
  afterEach(() => {
    delete process.env[SUITE_LOG_DIR_ENV];
    rmSync(dir, { recursive: true, force: true });
  });

  it('ignores short and placeholder values', () => {
    expect(isSearchableSecret('short')).toBe(false);
    expect(isSearchableSecret('[REDACTED]')).toBe(false);
    expect(isSearchableSecret('2026-11-24T06:00:00Z')).toBe(false);
    expect(isSearchableSecret('        ')).toBe(false);
    expect(isSearchableSecret('aaaaaaaabbbb')).toBe(false);
    expect(isSearchableSecret('glpat-AbCdEfGhIj')).toBe(true);
  });

  it('passes when no log line holds a secret, and says how much it checked', () => {
    registerSecret('glpat-clean-secret-0001', 'spec');
    writeFileSync(path.join(dir, 'a.log'), '[gateway] GET /api/v4/user 200\n[identity] warn something\n');
    expect(assertNoSecretsInSuiteLogs(dir, log)).toMatchObject({ secrets: 1, lines: 2, logFiles: 1, leaks: [], sources: { spec: 1 } });
    expect(lines).toEqual(['secrets in logs: 1 secrets × 2 log lines checked (1 stacks), 0 found', 'secrets in logs: by source spec 1']);
  });

  it('fails on a leak, naming the file, the line and the first 6 characters only', () => {
    registerSecret('glpat-leaked-secret-0002', 'spec');
    writeFileSync(path.join(dir, 'b.log'), '[gateway] ok\n[gateway] token=glpat-leaked-secret-0002\n');
    let message = '';
    try {
      assertNoSecretsInSuiteLogs(dir, log);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('1 found');
    expect(message).toContain('b.log:2: glpat-… (spec)');
    expect(message).not.toContain('leaked-secret');
  });

  it('fails rather than pass vacuously: no secret registered, or no log line written', () => {
    writeFileSync(path.join(dir, 'c.log'), '[gateway] a line\n');
    expect(() => assertNoSecretsInSuiteLogs(dir, log)).toThrow(/no secret was registered/);
    registerSecret('glpat-another-secret-0003', 'spec');
    writeFileSync(path.join(dir, 'c.log'), '');
    expect(() => assertNoSecretsInSuiteLogs(dir, log)).toThrow(/no log line was written/);
  });

  it('has nothing to check when no stack was started', () => {
    expect(assertNoSecretsInSuiteLogs(dir, log)).toBeUndefined();
    expect(lines).toEqual(['secrets in logs: no stack was started, nothing to check']);
  });
});
