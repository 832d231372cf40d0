import { z } from 'zod';

const list = (fallback: string) =>
  z.string().default(fallback).transform((s, ctx) => {
    const xs = s.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
    if (!xs.length || xs.some((x) => !Number.isInteger(x) || x < 1)) {
      ctx.addIssue({ code: 'custom', message: `a comma-separated list of positive integers, got "${s}"` });
      return z.NEVER;
    }
    return xs;
  });

/** The suite's settings (environment variables; bench/README.md lists them). */
export const suiteConfigSchema = z.object({
  /** Project counts to seed and measure at, reseeding between them (growth). */
  BENCH_SIZES: list('10000,100000,1000000'),
  /** autocannon connections (and closed-loop workers for the gRPC and SQL baselines). */
  BENCH_CONCURRENCY: list('1,8,16,32'),
  /** Measured seconds per scenario and concurrency level. */
  BENCH_SECONDS: z.coerce.number().positive().default(10),
  /** Unmeasured warm-up seconds before each measured run. */
  BENCH_WARMUP_SECONDS: z.coerce.number().min(0).default(2),
  /**
   * Unmeasured seconds of the read scenarios, shared among them, once the stack is started and seeded, before anything
   * is measured: a long-running stack is warm (JIT-compiled, heaps grown); without it the first scenario measured a
   * stack still warming up.
   */
  BENCH_STACK_WARMUP_SECONDS: z.coerce.number().min(0).default(20),
  /**
   * How many times each measurement a target is checked against runs (the single-project reads and the bare ceiling at
   * the highest concurrency, the offset listing at its target's size, the keyset listing at the largest size, each run
   * alternated with one at the smallest size on a second stack); the run with the median p50 is recorded. This VM's
   * speed moves from one measurement to the next (the same ceiling measured 17,566 and 32,520 req/s in two runs): one
   * sample decided a target by its luck.
   */
  BENCH_TARGET_REPEATS: z.coerce.number().int().min(1).default(3),
  /** Group namespaces the projects spread over. */
  BENCH_NAMESPACES: z.coerce.number().int().positive().default(1000),
  /** Only the scenarios whose name contains one of these (comma-separated); empty: all. */
  BENCH_SCENARIOS: z.string().default(''),
  /** Where results/<timestamp>/ goes (default: bench/results at the repository root). */
  BENCH_RESULTS_DIR: z.string().optional(),
});

export type SuiteConfig = z.infer<typeof suiteConfigSchema>;

export function suiteConfig(env: NodeJS.ProcessEnv = process.env): SuiteConfig {
  return suiteConfigSchema.parse(env);
}
