/**
 * What push rules cost a `git push`: pushes of 1 commit and of BENCH_COMMITS (1,000) commits, each commit adding or
 * changing a file, to a project with every rule on (regexes the commits satisfy, max_file_size, member_check,
 * prevent_secrets, commit_committer_check, deny_delete_tag, branch_name_regex …) and to a project without a rule,
 * BENCH_RUNS (5) times each on fresh branches. Reports the median `git push` wall time and the median pre-receive check
 * duration (repo-admin's `repo_admin_pre_receive_check_seconds`, read from its /metrics around each push) and the
 * overhead (rules − none), as a Markdown table.
 *
 *   npm run bench:push-rules               boots its own stack (needs infra: deploy/local/infra.sh up)
 *   BENCH_COMMITS=1000 BENCH_RUNS=5 npm run bench:push-rules
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchInfra, percentile } from './bench-kit';
import { startStack, type RunningStack } from '../stack';

const GIT_ENV = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
/** Root's e-mail in the stack (identity's default GITLAB_ROOT_EMAIL): a member, and the pusher's own verified e-mail. */
const ROOT = 'Root <admin@example.com>';

function git(args: string[], opts: { cwd?: string; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: opts.cwd, env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args[0]} failed (${code}): ${err}`))));
    child.stdin.end(opts.input ?? '');
  });
}

/** `n` commits on a new branch from `from` (a root commit without), each changing one of 50 files (content unique to `tag`). */
function commitsStream(branch: string, from: string | undefined, n: number, tag: string): string {
  const parts: string[] = [];
  const t0 = 1_700_000_000;
  for (let i = 1; i <= n; i++) {
    const content = `${tag} revision ${i}\n${'line of text that makes the file a little bigger\n'.repeat(8)}`;
    const msg = `Bench ${tag} commit ${i}\n\nChanges src/file-${i % 50}.txt.\n`;
    parts.push(`commit ${branch}`, `author ${ROOT} ${t0 + i} +0000`, `committer ${ROOT} ${t0 + i} +0000`, `data ${Buffer.byteLength(msg)}`, msg.slice(0, -1));
    if (i === 1 && from) parts.push(`from ${from}`);
    parts.push(`M 100644 inline src/file-${String(i % 50).padStart(2, '0')}.txt`, `data ${Buffer.byteLength(content)}`, content);
  }
  return `${parts.join('\n')}\n`;
}

/** Sum and count of the pre-receive histogram for `active` (allowed pushes), from repo-admin's /metrics. */
async function checkTotals(metricsUrl: string, active: boolean): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const read = (suffix: string) => {
    let total = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith(`repo_admin_pre_receive_check_seconds_${suffix}{`)) continue;
      if (!line.includes(`push_rules_active="${active}"`) || !line.includes('outcome="allowed"')) continue;
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return total;
  };
  return { sum: read('sum'), count: read('count') };
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main(): Promise<void> {
  const many = Number(process.env.BENCH_COMMITS ?? 1000);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-bench-push-rules-'));
  let stack: RunningStack | undefined;
  try {
    await benchInfra();
    stack = await startStack({ name: 'bench_push_rules', env: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn' } });
    const headers = { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' };
    const api = async (p: string, method: string, body: unknown, status: number) => {
      const res = await fetch(`${stack!.apiUrl}${p}`, { method, headers, body: JSON.stringify(body) });
      if (res.status !== status) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ id: number; path_with_namespace: string }>;
    };

    const modes = [{ name: 'all rules', active: true }, { name: 'no rule', active: false }];
    const setups = [];
    for (const mode of modes) {
      const project = await api('/projects', 'POST', { name: `bench-push-rules-${mode.active ? 'on' : 'off'}-${Date.now()}` }, 201);
      const url = new URL(`${stack.url}/${project.path_with_namespace}.git`);
      url.username = 'root';
      url.password = stack.rootToken;
      const dir = path.join(work, mode.active ? 'on' : 'off');
      await git(['init', '-q', '-b', 'main', dir]);
      for (let i = 0; ; i++) {
        try {
          await git(['ls-remote', url.toString()]);
          break;
        } catch (err) {
          if (i > 150) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await git(['fast-import', '--quiet'], { cwd: dir, input: commitsStream('refs/heads/main', undefined, 1, 'seed') });
      await git(['push', '-q', url.toString(), 'main'], { cwd: dir });
      if (mode.active) {
        // Every rule on, each satisfied by the commits pushed.
        await api(`/projects/${project.id}/push_rule`, 'POST', {
          commit_message_regex: '^Bench ', commit_message_negative_regex: 'do not merge', branch_name_regex: '^bench/',
          author_email_regex: '@example\\.com$', file_name_regex: '\\.(exe|dll)$', max_file_size: 10, member_check: true, prevent_secrets: true,
          commit_committer_check: true, deny_delete_tag: true,
        }, 201);
      }
      setups.push({ ...mode, dir, url: url.toString(), base: await git(['rev-parse', 'main'], { cwd: dir }) });
    }

    const sizes = [1, many];
    const wall = new Map<string, number[]>();
    const check = new Map<string, number[]>();
    let seq = 0;
    // Warm-up once per mode, then `runs` rounds, modes and sizes interleaved.
    for (let round = 0; round <= runs; round++) {
      for (const size of sizes) {
        for (const s of setups) {
          const tag = `r${round}-${size}-${s.active ? 'on' : 'off'}-${seq++}`;
          const branch = `refs/heads/bench/${tag}`;
          await git(['fast-import', '--quiet'], { cwd: s.dir, input: commitsStream(branch, s.base, size, tag) });
          const before = await checkTotals(stack.metricsUrls.repoAdmin, s.active);
          const ms = await timeIt(() => git(['push', '-q', s.url, `${branch}:${branch}`], { cwd: s.dir }));
          const after = await checkTotals(stack.metricsUrls.repoAdmin, s.active);
          if (after.count !== before.count + 1) throw new Error(`expected one allowed pre-receive check (${s.name}), saw ${after.count - before.count}`);
          if (round === 0) continue;
          const key = `${s.name}|${size}`;
          (wall.get(key) ?? wall.set(key, []).get(key)!).push(ms);
          (check.get(key) ?? check.set(key, []).get(key)!).push((after.sum - before.sum) * 1000);
        }
      }
    }
    const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
    const lines = [
      `git push through the gateway, median of ${runs} runs (after one warm-up), fresh branch per run`,
      '',
      '| commits | rules | git push (ms) | pre-receive check (ms) |',
      '|---:|---|---:|---:|',
    ];
    for (const size of sizes) {
      for (const s of setups) {
        const key = `${s.name}|${size}`;
        lines.push(`| ${size} | ${s.name} | ${median(wall.get(key)!).toFixed(0)} | ${median(check.get(key)!).toFixed(1)} |`);
      }
    }
    lines.push('', '| commits | overhead git push (ms) | overhead pre-receive (ms) | per commit (ms) |', '|---:|---:|---:|---:|');
    for (const size of sizes) {
      const dw = median(wall.get(`all rules|${size}`)!) - median(wall.get(`no rule|${size}`)!);
      const dc = median(check.get(`all rules|${size}`)!) - median(check.get(`no rule|${size}`)!);
      lines.push(`| ${size} | ${dw.toFixed(0)} | ${dc.toFixed(1)} | ${(dc / size).toFixed(2)} |`);
    }
    console.log(lines.join('\n'));
  } finally {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
