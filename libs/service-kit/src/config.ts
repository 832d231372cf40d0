import { z } from 'zod';

/** Thrown when the environment does not satisfy a process's configuration schema. */
export class ConfigError extends Error {
  constructor(public readonly issues: string[]) {
    super(`Invalid configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates `env` against a zod object whose keys are environment variable names.
 * Every problem is reported with the variable's name, e.g. `GRPC_PORT: expected a number, got "abc"`.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const raw = env[key];
    input[key] = raw === '' ? undefined : raw;
  }
  const result = schema.safeParse(input);
  if (result.success) {
    const unsafe = unsafeDefaults(result.data as Record<string, unknown>);
    if (unsafe.length) throw new ConfigError(unsafe);
  }
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(root)';
        const got = input[String(issue.path[0])];
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
      }),
    );
  }
  return result.data;
}

/**
 * The built-in ACTOR_SECRET: lets `npm start` and `npm test` run with no configuration. Anyone who knows
 * it can forge callers between services, so a process refuses it unless NODE_ENV says development or test.
 */
export const DEV_ACTOR_SECRET = 'local-dev-actor-secret-change-me';
const DEV_ENVIRONMENTS = new Set(['development', 'test']);

/** Defaults that are only safe on a developer's machine, used where NODE_ENV is not development/test. */
function unsafeDefaults(config: Record<string, unknown>): string[] {
  if (config.ACTOR_SECRET !== DEV_ACTOR_SECRET) return [];
  const nodeEnv = typeof config.NODE_ENV === 'string' ? config.NODE_ENV : undefined;
  if (nodeEnv && DEV_ENVIRONMENTS.has(nodeEnv)) return [];
  return [
    `ACTOR_SECRET: the built-in development secret is refused when NODE_ENV is ${nodeEnv ? JSON.stringify(nodeEnv) : 'unset'}; ` +
      'set ACTOR_SECRET (at least 16 characters, the same in the gateway and every service), or NODE_ENV=development for local use',
  ];
}

/** Reusable field schemas for environment variables. */
export const env = {
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: () => z.string().url(),
  str: (def?: string) => (def === undefined ? z.string().min(1) : z.string().min(1).default(def)),
  /** A comma-separated list, e.g. KAFKA_BROKERS=host1:9092,host2:9092 */
  list: (def?: string) =>
    (def === undefined ? z.string().min(1) : z.string().min(1).default(def)).transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  /** A comma-separated list that may be unset or empty (then `def`, itself a comma-separated list). */
  optionalList: (def = '') =>
    z
      .string()
      .optional()
      .transform((v) =>
        (v ?? def)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  /** A Postgres schema or other SQL identifier. */
  identifier: (def: string) =>
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default(def),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** Settings every service process shares. */
export const commonServiceEnv = {
  LOG_LEVEL: env.logLevel(),
  /** Shared secret that signs the actor metadata between the gateway and the services. */
  ACTOR_SECRET: z.string().min(16, 'must be at least 16 characters').default(DEV_ACTOR_SECRET),
  /** `development` / `test` allow the built-in ACTOR_SECRET; anything else (e.g. `production`, unset) refuses it. */
  NODE_ENV: z.string().optional(),
  METRICS_PORT: env.port(0),
  SHUTDOWN_TIMEOUT_MS: env.int(10000, 0, 120000),
  /**
   * gRPC servers close a client connection after this long (GOAWAY; calls in flight finish), so clients resolve the
   * service's DNS again and spread over replicas added since (HPA scale-up behind a headless Service). 0 = never.
   */
  GRPC_MAX_CONNECTION_AGE_MS: env.int(300000, 0),
};
