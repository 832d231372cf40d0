/**
 * Where a request's CPU goes, from a system-wide `perf record -a -g` of the machine while a scenario runs: every
 * sample is a moment a CPU was running something, so shares add up to the machine (idle included) and, unlike V8's
 * own profiler (which samples wall-clock time and counts a preempted thread as busy in whatever it was running),
 * a process only has the samples it was on a CPU for.
 *
 * Input: `perf script -F comm,pid,tid,ip,sym` (a header line `comm pid/tid`, then one indented `ip symbol` line per
 * frame, leaf first, then a blank line). Node services started with `--perf-basic-prof` name their JIT code
 * `JS:<name> <file>:<line>`: a sample of a Node service is put in the category of its nearest such frame's file (the
 * builtins and runtime calls under it are that code's cost), or of its native frames when it has none.
 */

export interface PerfSample {
  comm: string;
  pid: number;
  tid: number;
  /** Symbols, leaf first. */
  frames: string[];
}

/** Parses `perf script -F comm,pid,tid,ip,sym` output. */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  let current: PerfSample | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current) samples.push(current);
      current = undefined;
    } else if (!/^\s/.test(line)) {
      // "comm pid/tid" (comm may contain spaces: the last field is pid/tid).
      const m = /^(.*?)\s+(\d+)\/(\d+)\s*$/.exec(line);
      current = m ? { comm: m[1]!, pid: Number(m[2]), tid: Number(m[3]), frames: [] } : undefined;
    } else if (current) {
      const m = /^\s*[0-9a-f]+\s+(.*)$/.exec(line);
      current.frames.push(m ? m[1]!.trim() : line.trim());
    }
  }
  if (current) samples.push(current);
  return samples;
}

const GC_FRAME = /Scaveng|MarkCompact|Heap::CollectGarbage|IncrementalMarking|Sweeper|ConcurrentMarking|PerformGarbageCollection|MinorGC|MarkingVisitor/;

/** The category of a Node service's sample (`mainThread`: taken on its JS thread, not one of V8's workers). */
export function nodeCategory(frames: readonly string[], mainThread: boolean): string {
  if (frames.some((f) => GC_FRAME.test(f))) return 'garbage collection';
  if (!mainThread) return 'V8 workers, other (compiler)';
  const js = frames.find((f) => f.startsWith('JS:'));
  if (js) {
    if (/node_modules\/@grpc\/|node:internal\/http2|node_modules\/@bufbuild\/|\/libs\/proto\/|\/libs\/service-kit\/dist\/grpc-/.test(js)) return 'gRPC: grpc-js, node:http2, protobuf';
    if (/node_modules\/(router|express)\//.test(js)) return 'Express routing';
    if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(js)) return 'PostgreSQL client (pg)';
    if (/\/(apps|libs)\/[^/ ]+\/dist[^/ ]*\//.test(js) && !/node_modules/.test(js)) return 'our code';
    if (/node_modules\//.test(js)) return 'other libraries (zod, lru-cache, prom-client, ...)';
    if (/node:(_http_|net|internal\/streams|internal\/stream_base|buffer|internal\/buffer)/.test(js)) return 'HTTP, sockets, streams, Buffer';
    return 'event loop, promises, timers, other Node';
  }
  const all = frames.join(' ');
  if (/nghttp2|http2/.test(all)) return 'gRPC: grpc-js, node:http2, protobuf';
  if (/llhttp|http_parser/.test(all)) return 'HTTP, sockets, streams, Buffer';
  return 'native: libuv, kernel, other';
}

export interface ProcessShare {
  name: string;
  samples: number;
  /** Node services only: samples by category, largest first. */
  categories: { name: string; samples: number }[];
}

export interface OnCpuProfile {
  samples: number;
  processes: ProcessShare[];
}

/**
 * Samples by process (`roles`: pid → name, e.g. gateway, projects, the load generator; PostgreSQL's backends by their
 * command name; the idle task as "idle"; anything else as "other: <comm>"), and by category for the pids in `node`.
 */
export function onCpuProfile(samples: readonly PerfSample[], roles: ReadonlyMap<number, string>, node: ReadonlySet<number>): OnCpuProfile {
  const byProcess = new Map<string, { samples: number; categories: Map<string, number> }>();
  for (const s of samples) {
    const name = roles.get(s.pid) ?? (s.comm.startsWith('postgres') ? 'postgres' : s.comm === 'swapper' ? 'idle' : `other: ${s.comm}`);
    const entry = byProcess.get(name) ?? { samples: 0, categories: new Map<string, number>() };
    entry.samples++;
    if (node.has(s.pid)) {
      const category = nodeCategory(s.frames, s.tid === s.pid);
      entry.categories.set(category, (entry.categories.get(category) ?? 0) + 1);
    }
    byProcess.set(name, entry);
  }
  const processes = [...byProcess].map(([name, e]) => ({
    name, samples: e.samples, categories: [...e.categories].map(([c, n]) => ({ name: c, samples: n })).sort((a, b) => b.samples - a.samples),
  })).sort((a, b) => b.samples - a.samples);
  return { samples: samples.length, processes };
}

/**
 * The profile as a Markdown table: each process and category as a share of the machine and as ms of CPU per request
 * (`hz`: perf's sampling frequency; `requests`: answered during the recording). Processes under `minShare` of the
 * samples (Kafka's and the kernel's threads, idle services) are summed in one row; the JSON keeps each.
 */
export function onCpuTable(profile: OnCpuProfile, hz: number, requests: number, minShare = 0.005): string {
  const pct = (n: number) => `${((100 * n) / profile.samples).toFixed(1)}%`;
  const ms = (n: number) => (requests > 0 ? ((n * 1000) / hz / requests).toFixed(3) : '');
  const rows = ['| process / category | share of the machine | ms of CPU per request |', '|---|---:|---:|'];
  const small = profile.processes.filter((p) => p.samples < minShare * profile.samples);
  for (const p of profile.processes) {
    if (small.includes(p)) continue;
    rows.push(`| **${p.name}** | ${pct(p.samples)} | ${ms(p.samples)} |`);
    for (const c of p.categories) rows.push(`| &nbsp;&nbsp;${c.name} | ${pct(c.samples)} | ${ms(c.samples)} |`);
  }
  if (small.length) {
    const n = small.reduce((sum, p) => sum + p.samples, 0);
    rows.push(`| **${small.length} other processes and threads, each under ${(100 * minShare).toFixed(1)}%** | ${pct(n)} | ${ms(n)} |`);
  }
  return rows.join('\n');
}
