import { z } from 'zod';
import { commonServiceEnv, ConfigError, DEV_ACTOR_SECRET, env, loadConfig } from './config';

const schema = z.object({
  ...commonServiceEnv,
  DATABASE_URL: env.url(),
  GRPC_PORT: env.port(50051),
  KAFKA_BROKERS: env.list('127.0.0.1:9092'),
  DB_SCHEMA: env.identifier('identity'),
  FEATURE_ON: env.bool(false),
});

describe('loadConfig', () => {
  const dev = { NODE_ENV: 'test' };
  it('applies defaults and coerces types', () => {
    const c = loadConfig(schema, { ...dev, DATABASE_URL: 'postgres://a:b@h:5432/d' });
    expect(c).toMatchObject({ GRPC_PORT: 50051, KAFKA_BROKERS: ['127.0.0.1:9092'], DB_SCHEMA: 'identity', FEATURE_ON: false, LOG_LEVEL: 'info' });
  });

  it('parses lists, ports and booleans from strings', () => {
    const c = loadConfig(schema, { ...dev, DATABASE_URL: 'postgres://h/d', GRPC_PORT: '6000', KAFKA_BROKERS: 'a:1, b:2,', FEATURE_ON: 'yes' });
    expect(c.GRPC_PORT).toBe(6000);
    expect(c.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(c.FEATURE_ON).toBe(true);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(schema, { ...dev, DATABASE_URL: 'postgres://h/d', GRPC_PORT: '' }).GRPC_PORT).toBe(50051);
  });

  it('names every bad variable and what it got', () => {
    let error: unknown;
    try {
      loadConfig(schema, { GRPC_PORT: 'abc', DB_SCHEMA: 'Bad-Name', LOG_LEVEL: 'loud', ACTOR_SECRET: 'short' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.find((i) => i.startsWith('DATABASE_URL:'))).toBeDefined();
    expect(issues.find((i) => i.startsWith('GRPC_PORT:'))).toContain('"abc"');
    expect(issues.find((i) => i.startsWith('DB_SCHEMA:'))).toContain('lower-case SQL identifier');
    expect(issues.find((i) => i.startsWith('LOG_LEVEL:'))).toContain('"loud"');
    expect(issues.find((i) => i.startsWith('ACTOR_SECRET:'))).toContain('at least 16 characters');
    expect((error as Error).message).toMatch(/^Invalid configuration:\n {2}- /);
  });

  it('refuses the built-in ACTOR_SECRET unless NODE_ENV is development or test, naming the variable', () => {
    for (const nodeEnv of [undefined, 'production', 'staging']) {
      expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://h/d', NODE_ENV: nodeEnv })).toThrow(
        /ACTOR_SECRET: the built-in development secret is refused when NODE_ENV is/,
      );
      expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://h/d', NODE_ENV: nodeEnv, ACTOR_SECRET: DEV_ACTOR_SECRET })).toThrow(ConfigError);
      const own = loadConfig(schema, { DATABASE_URL: 'postgres://h/d', NODE_ENV: nodeEnv, ACTOR_SECRET: 'a-real-secret-of-32-characters!!' });
      expect(own.ACTOR_SECRET).toBe('a-real-secret-of-32-characters!!');
    }
    for (const nodeEnv of ['development', 'test']) {
      expect(loadConfig(schema, { DATABASE_URL: 'postgres://h/d', NODE_ENV: nodeEnv }).ACTOR_SECRET).toBe(DEV_ACTOR_SECRET);
    }
  });

  it('rejects a port out of range', () => {
    expect(() => loadConfig(schema, { DATABASE_URL: 'postgres://h/d', GRPC_PORT: '70000' })).toThrow(/GRPC_PORT/);
  });
});

describe('env.optionalList', () => {
  it('reads a comma list that may be unset or empty', () => {
    const schema = z.object({ A: env.optionalList(), B: env.optionalList('default') });
    expect(schema.parse({})).toEqual({ A: [], B: ['default'] });
    expect(schema.parse({ A: ' x, y ,', B: 'a' })).toEqual({ A: ['x', 'y'], B: ['a'] });
  });
});
