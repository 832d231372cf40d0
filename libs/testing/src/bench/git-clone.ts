/**
 * Clone time of a repository with many commits through the whole stack (git → gateway → repo-admin → git upload-pack)
 * against `git clone` of the same bare repository straight from repo-admin's disk. Median of BENCH_RUNS clones each.
 *
 *   npm run bench:clone                    boots its own stack (needs infra: deploy/local/infra.sh up)
 *   BENCH_COMMITS=5000 BENCH_RUNS=5 npm run bench:clone
 *
 * The repository (BENCH_COMMITS commits, each changing one of 50 small files, written with `git fast-import`) is pushed
 * into a new project through the gateway, so the repository on disk is the one the clones read. Three ways to clone it,
 * all `--bare` (no checkout: the same local work for every way, left out of the comparison):
 *   - through the gateway: http://oauth2:<token>@…/root/<project>.git (protocol v2, git's default);
 *   - from disk, `git clone <path>`: git's local clone, which hard-links the objects instead of transferring them;
 *   - from disk, `git clone --no-local <path>`: the same pack negotiation and transfer as a remote, over a pipe.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { benchInfra, percentile } from './bench-kit';
import { startStack, type RunningStack } from '../stack';

const GIT_ENV = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** Runs git (no shell); `input` goes to its stdin. Rejects with its stderr on failure. */
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

/** A `git fast-import` stream of `n` commits on main, each rewriting one of 50 files. */
function fastImportStream(n: number): string {
  const parts: string[] = [];
  const t0 = 1_700_000_000;
  for (let i = 1; i <= n; i++) {
    const content = `file ${i % 50}, revision ${i}\n${'line of text that makes the file a little bigger\n'.repeat(8)}`;
    const msg = `Commit number ${i}\n`;
    parts.push(
      'commit refs/heads/main',
      `committer Bench Mark <bench@example.com> ${t0 + i * 60} +0000`,
      `data ${Buffer.byteLength(msg)}`,
      msg.slice(0, -1),
      `M 100644 inline src/file-${String(i % 50).padStart(2, '0')}.txt`,
      `data ${Buffer.byteLength(content)}`,
      content,
    );
  }
  return `${parts.join('\n')}\n`;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const hashedDiskPath = (id: number) => {
  const h = createHash('sha256').update(String(id)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
};

async function main(): Promise<void> {
  const commits = Number(process.env.BENCH_COMMITS ?? 5000);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const work = mkdtempSync(path.join(os.tmpdir(), 'glp-bench-clone-'));
  let stack: RunningStack | undefined;
  try {
    await benchInfra();
    stack = await startStack({ name: 'bench_clone', env: { LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn' } });
    const api = stack.apiUrl;
    const headers = { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' };

    // 1. The repository: BENCH_COMMITS commits, written locally with fast-import.
    const seed = path.join(work, 'seed.git');
    await git(['init', '-q', '--bare', '-b', 'main', seed]);
    const tImport = await timeIt(() => git(['fast-import', '--quiet'], { cwd: seed, input: fastImportStream(commits) }));
    console.log(`seed: ${commits} commits written with git fast-import in ${(tImport / 1000).toFixed(1)} s`);

    // 2. A project, and the repository pushed into it through the gateway.
    const created = await fetch(`${api}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: `bench-clone-${Date.now()}` }) });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const project = (await created.json()) as { id: number; path_with_namespace: string };
    const url = new URL(`${stack.url}/${project.path_with_namespace}.git`);
    url.username = 'oauth2';
    url.password = stack.rootToken;
    for (let i = 0; ; i++) {
      try {
        await git(['ls-remote', url.toString()]);
        break;
      } catch (err) {
        if (i > 150) throw err; // the create job has not run in 30 s
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const tPush = await timeIt(() => git(['push', '-q', url.toString(), 'main'], { cwd: seed }));
    console.log(`push through the gateway: ${(tPush / 1000).toFixed(2)} s`);
    const onDisk = path.join(stack.storageRoot, hashedDiskPath(project.id));
    const count = await git(['rev-list', '--count', 'main'], { cwd: onDisk });
    const size = await git(['count-objects', '-vH'], { cwd: onDisk });
    console.log(`repository on disk: ${count} commits, ${/size-pack: (.*)/.exec(size)?.[1] ?? '?'} packed`);

    // 3. The clones: warm-up once each, then BENCH_RUNS each, interleaved so the machine's state is shared fairly.
    const ways: { name: string; args: (dir: string) => string[] }[] = [
      { name: 'through the gateway (HTTP)', args: (dir) => ['clone', '-q', '--bare', url.toString(), dir] },
      { name: 'from disk: git clone <path>', args: (dir) => ['clone', '-q', '--bare', onDisk, dir] },
      { name: 'from disk: git clone --no-local', args: (dir) => ['clone', '-q', '--bare', '--no-local', onDisk, dir] },
    ];
    const samples = ways.map(() => [] as number[]);
    let n = 0;
    for (let round = 0; round <= runs; round++) {
      for (const [i, way] of ways.entries()) {
        const dir = path.join(work, `clone-${n++}.git`);
        const ms = await timeIt(() => git(way.args(dir)));
        if ((await git(['rev-list', '--count', 'main'], { cwd: dir })) !== count) throw new Error(`${way.name}: incomplete clone`);
        rmSync(dir, { recursive: true, force: true });
        if (round > 0) samples[i]!.push(ms); // round 0 warms caches
      }
    }
    const medians = samples.map((s) => percentile([...s].sort((a, b) => a - b), 0.5));
    console.log(`\nclone of ${count} commits, median of ${runs} (after one warm-up each), --bare`);
    console.log(`  ${'way'.padEnd(34)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'max ms'.padStart(8)} ${'gateway / this'.padStart(15)}`);
    for (const [i, way] of ways.entries()) {
      const s = samples[i]!;
      console.log(`  ${way.name.padEnd(34)} ${medians[i]!.toFixed(0).padStart(10)} ${Math.min(...s).toFixed(0).padStart(8)} ${Math.max(...s).toFixed(0).padStart(8)} ${(medians[0]! / medians[i]!).toFixed(2).padStart(14)}x`);
    }
  } finally {
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
