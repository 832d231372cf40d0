import type { RunningStack } from '@glp/testing';

/** One answered (or failed) request of a load loop. */
export interface Sample {
  name: string;
  /** ms since the load started */
  at: number;
  ms: number;
  /** 0: no answer (connection error or the client's own timeout) */
  status: number;
  contentType: string | null;
  body: string;
}

export interface LoadRequest {
  name: string;
  path: string;
  method?: string;
  body?: unknown;
}

/**
 * Closed-loop load on a stack: `concurrency` loops, each sending the next request of `requests` (round robin) as soon
 * as the previous one is answered, until `stop()`. Every request carries a client timeout far beyond any deadline of
 * the gateway (`clientTimeoutMs`), so a hung request shows up as status 0 with a long `ms`, never as a stuck test.
 */
export function startLoad(stack: RunningStack, requests: LoadRequest[] | ((i: number) => LoadRequest), opts: { concurrency?: number; token?: string; clientTimeoutMs?: number } = {}) {
  const samples: Sample[] = [];
  const t0 = Date.now();
  let running = true;
  let n = 0;
  const next = typeof requests === 'function' ? requests : (i: number) => requests[i % requests.length]!;
  const loop = async () => {
    while (running) {
      const r = next(n++);
      const start = Date.now();
      let status = 0;
      let contentType: string | null = null;
      let body = '';
      try {
        const res = await fetch(`${stack.apiUrl}${r.path}`, {
          method: r.method ?? 'GET',
          headers: { 'PRIVATE-TOKEN': opts.token ?? stack.rootToken, 'Content-Type': 'application/json' },
          body: r.body === undefined ? undefined : JSON.stringify(r.body),
          signal: AbortSignal.timeout(opts.clientTimeoutMs ?? 30000),
        });
        status = res.status;
        contentType = res.headers.get('content-type');
        body = await res.text();
      } catch (e) {
        body = String(e);
      }
      samples.push({ name: r.name, at: start - t0, ms: Date.now() - start, status, contentType, body });
    }
  };
  const loops = Array.from({ length: opts.concurrency ?? 6 }, loop);
  return {
    samples,
    /** ms since the load started */
    now: () => Date.now() - t0,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

/** Polls `probe` every 50 ms until it answers true; resolves with the ms it took (rejects after `timeoutMs`). */
export async function timeUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Status counts by request name, e.g. { 'GET /user': { 200: 120 } }: what a failing assertion prints. */
export function tally(samples: Sample[]) {
  const out: Record<string, Record<number, number>> = {};
  for (const s of samples) (out[s.name] ??= {})[s.status] = ((out[s.name] ??= {})[s.status] ?? 0) + 1;
  return out;
}
