/** Per service during one measured run: peak resident memory and CPU use (100 = one core busy). */
export interface ServiceUsage {
  rssMb: number;
  cpuPercent: number;
}

interface Sample {
  rss: number;
  cpu: number;
}

/** process_resident_memory_bytes and process_cpu_seconds_total from a prom-client /metrics page. */
export function parseProcessMetrics(text: string): Sample | undefined {
  const rss = /^process_resident_memory_bytes(?:\{[^}]*\})?\s+(\S+)/m.exec(text)?.[1];
  const cpu = /^process_cpu_seconds_total(?:\{[^}]*\})?\s+(\S+)/m.exec(text)?.[1];
  return rss && cpu ? { rss: Number(rss), cpu: Number(cpu) } : undefined;
}

async function scrape(url: string): Promise<Sample | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return parseProcessMetrics(await res.text());
  } catch {
    return undefined;
  }
}

/**
 * Samples every service's /metrics (prom-client's default process metrics) once a second from `start()` to `stop()`:
 * CPU is the cpu-seconds delta over the wall time, RSS the highest sample.
 */
export function watchServices(metricsUrls: Record<string, string>, everyMs = 1000): { stop(): Promise<Record<string, ServiceUsage>> } {
  const names = Object.keys(metricsUrls);
  const first = new Map<string, Sample & { at: number }>();
  const peak = new Map<string, number>();
  const take = async () => {
    await Promise.all(names.map(async (n) => {
      const s = await scrape(metricsUrls[n]!);
      if (!s) return;
      if (!first.has(n)) first.set(n, { ...s, at: Date.now() });
      peak.set(n, Math.max(peak.get(n) ?? 0, s.rss));
    }));
  };
  const started = take();
  const timer = setInterval(() => void take(), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await started;
      const out: Record<string, ServiceUsage> = {};
      await Promise.all(names.map(async (n) => {
        const s = await scrape(metricsUrls[n]!);
        const f = first.get(n);
        if (!s || !f) return;
        const wall = (Date.now() - f.at) / 1000;
        out[n] = { rssMb: Math.max(peak.get(n) ?? 0, s.rss) / 2 ** 20, cpuPercent: wall > 0 ? ((s.cpu - f.cpu) / wall) * 100 : 0 };
      }));
      return out;
    },
  };
}

/** CPU the services used together (100 = one core) over `windowMs`; undefined when a service could not be read. */
async function servicesCpuPercent(metricsUrls: Record<string, string>, windowMs: number): Promise<number | undefined> {
  const urls = Object.values(metricsUrls);
  const before = await Promise.all(urls.map(scrape));
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, windowMs));
  const after = await Promise.all(urls.map(scrape));
  const wall = (Date.now() - t0) / 1000;
  let cpu = 0;
  for (const [i, b] of before.entries()) {
    const a = after[i];
    if (!a || !b) return undefined;
    cpu += a.cpu - b.cpu;
  }
  return (cpu / wall) * 100;
}

/**
 * Waits until the services are quiet: their CPU together below `thresholdPercent` over two consecutive windows (the
 * work a previous scenario left behind, e.g. repositories being created for thousands of new projects, would
 * otherwise be measured as the next scenario's cost), or `timeoutMs`. Returns how long it waited.
 */
export async function waitForQuietServices(metricsUrls: Record<string, string>, o: { thresholdPercent?: number; windowMs?: number; timeoutMs?: number } = {}): Promise<number> {
  const { thresholdPercent = 30, windowMs = 500, timeoutMs = 180_000 } = o;
  const t0 = Date.now();
  let quiet = 0;
  while (quiet < 2 && Date.now() - t0 < timeoutMs) {
    const cpu = await servicesCpuPercent(metricsUrls, windowMs);
    quiet = cpu !== undefined && cpu < thresholdPercent ? quiet + 1 : 0;
  }
  return Date.now() - t0;
}
