// Adjacent releases run side by side during a rolling upgrade: the previous release's gateway calls this release's
// services and the other way round, and each consumes the other's events. Their protobuf contracts must stay
// compatible: `buf breaking` of proto/ against the previous release's (deploy/upgrade/previous-release), with the
// rules of proto/buf.yaml (FILE: no field, message, enum value, RPC or service removed, renumbered or retyped).
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src';
import { extractAt, previousRelease } from '../../src/upgrade/previous-release';

const run = promisify(execFile);
const BUF = path.join(REPO_ROOT, 'node_modules/.bin/buf');

async function breaking(protoDir: string, againstDir: string): Promise<{ ok: boolean; out: string }> {
  try {
    await run(BUF, ['breaking', '--against', againstDir, '--error-format', 'text'], { cwd: protoDir });
    return { ok: true, out: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

let prevTree: string;
beforeAll(async () => {
  prevTree = mkdtempSync(path.join(os.tmpdir(), 'glp-prev-proto-'));
  await extractAt(await previousRelease(), ['proto'], prevTree);
});
afterAll(() => rmSync(prevTree, { recursive: true, force: true }));

it("proto/ is wire- and source-compatible with the previous release's", async () => {
  const result = await breaking(path.join(REPO_ROOT, 'proto'), path.join(prevTree, 'proto'));
  expect(result.out).toBe('');
  expect(result.ok).toBe(true);
});

it('the check reports a field removed from a message the previous release sends', async () => {
  const changed = mkdtempSync(path.join(os.tmpdir(), 'glp-proto-changed-'));
  try {
    cpSync(path.join(REPO_ROOT, 'proto'), changed, { recursive: true });
    const file = path.join(changed, 'gitlab/events/v1/repository_events.proto');
    const text = readFileSync(file, 'utf8');
    const without = text.replace(/\n\s*int32 total_commits_count = 8;/, '');
    expect(without).not.toBe(text);
    writeFileSync(file, without);
    const result = await breaking(changed, path.join(prevTree, 'proto'));
    expect(result.ok).toBe(false);
    expect(result.out).toMatch(/total_commits_count|field "8"|Previously present field/i);
  } finally {
    rmSync(changed, { recursive: true, force: true });
  }
});
