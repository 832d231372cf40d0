import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { percentile } from '../bench-kit';
import type { LoadNumbers } from './measurement';

/** An HTTP scenario: fixed requests, or a `setupRequest` that varies them per call (autocannon's request hooks). */
export interface HttpLoad {
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: string;
  /** Called for every request with autocannon's per-connection context object. */
  setupRequest?: (req: autocannon.Request, context: Record<string, unknown>) => autocannon.Request;
  /**
   * A sequence each connection sends in turn (autocannon's `requests`); the context object lives for one pass through
   * the sequence (autocannon resets it when a connection starts the sequence again).
   */
  sequence?: SequencedRequest[];
}

type SequencedRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: string;
  setupRequest: (req: autocannon.Request, context: Record<string, unknown>) => autocannon.Request;
};

/** autocannon's options for `load` at `connections` for `duration` seconds. */
function autocannonOptions(load: HttpLoad, connections: number, duration: number): autocannon.Options {
  // A single `setupRequest` is a sequence of one request.
  const sequence: SequencedRequest[] | undefined = load.sequence
    ?? (load.setupRequest ? [{ method: load.method ?? 'GET', body: load.body, setupRequest: load.setupRequest }] : undefined);
  return {
    url: load.url,
    connections,
    duration,
    headers: { 'Content-Type': 'application/json', ...load.headers },
    ...(sequence
      ? { requests: sequence.map((r) => ({ method: r.method, body: r.body, setupRequest: r.setupRequest as autocannon.Request['setupRequest'] })) }
      : { method: load.method ?? 'GET', body: load.body }),
  };
}

/** Unmeasured load: `load` at `connections` for `seconds`. */
export async function warmUp(load: HttpLoad, connections: number, seconds: number): Promise<void> {
  await autocannon(autocannonOptions(load, connections, seconds));
}

/** autocannon at `connections` for `seconds` after an unmeasured warm-up. */
export async function httpLoad(load: HttpLoad, connections: number, seconds: number, warmupSeconds: number): Promise<LoadNumbers> {
  if (warmupSeconds > 0) await warmUp(load, connections, warmupSeconds);
  // autocannon's own percentiles are whole milliseconds: keep every response's time (fractional ms) instead.
  const samples: number[] = [];
  // Without a callback autocannon returns its tracker (an EventEmitter) made thenable; the types show only the promise.
  const instance = autocannon(autocannonOptions(load, connections, seconds)) as Promise<autocannon.Result> & EventEmitter;
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => samples.push(ms));
  const r = await instance;
  samples.sort((a, b) => a - b);
  const q = (x: number) => (samples.length ? percentile(samples, x) : NaN);
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v.count ?? 0]));
  return { requests: r.requests.total, rps: r.requests.average, p50: q(0.5), p90: q(0.9), p99: q(0.99), errors: r.errors + r.timeouts, non2xx: r.non2xx, statuses };
}

/**
 * A closed loop for the non-HTTP baselines: `workers` concurrent callers of `call(worker, i)`, each starting its next
 * call when the previous one ends, for `seconds` (after a warm-up). Latency percentiles from every call's own time.
 */
export async function closedLoop(call: (worker: number, i: number) => Promise<void>, workers: number, seconds: number, warmupSeconds: number): Promise<LoadNumbers> {
  const run = async (ms: number) => {
    const samples: number[] = [];
    let errors = 0;
    const until = Date.now() + ms;
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        const s = process.hrtime.bigint();
        try {
          await call(w, i);
          samples.push(Number(process.hrtime.bigint() - s) / 1e6);
        } catch {
          errors++;
        }
      }
    }));
    return { samples, errors, wallS: Number(process.hrtime.bigint() - started) / 1e9 };
  };
  if (warmupSeconds > 0) await run(warmupSeconds * 1000);
  const { samples, errors, wallS } = await run(seconds * 1000);
  samples.sort((a, b) => a - b);
  const q = (x: number) => (samples.length ? percentile(samples, x) : NaN);
  return { requests: samples.length, rps: samples.length / wallS, p50: q(0.5), p90: q(0.9), p99: q(0.99), errors, non2xx: 0 };
}
