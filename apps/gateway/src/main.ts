import { Redis } from 'ioredis';
import {
  closeHttpServer, createFixedFieldsLogger, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startMetricsServer,
} from '@glp/service-kit';
import { createApp } from './app';
import { RedisHealth } from './cache/redis-health';
import { createServices } from './clients';
import { loadGatewayConfig } from './config';
import { createExpressServer } from './http/express-server';
import { ReadinessProbe } from './http/readiness';
import { serverTimeoutOptions } from './http/server-timeouts';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('gateway');
  const redis = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (err) => logger.debug({ err }, 'redis error'));
  const redisHealth = new RedisHealth(redis, logger);
  // Subscriber mode needs its own connection; commands queue until it connects, and it re-subscribes after reconnecting.
  const authSubscriber = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: null });
  authSubscriber.on('error', (err) => logger.debug({ err }, 'redis subscriber error'));
  onShutdown('redis', async () => {
    redis.disconnect();
    authSubscriber.disconnect();
  });
  const services = createServices(config);
  onShutdown('grpc clients', () => services.close());
  const readiness = new ReadinessProbe(
    { identity: config.IDENTITY_GRPC_ADDR, projects: config.PROJECTS_GRPC_ADDR },
    { redis: () => redisHealth.status() },
    config.INSTANCE_ID,
  );
  onShutdown('readiness', () => readiness.close());

  const app = createApp({
    services, redis, authSubscriber, readiness, logger, externalUrl: config.EXTERNAL_URL,
    authCacheTtlSeconds: config.AUTH_CACHE_TTL_SECONDS, authLocalTtlMs: config.AUTH_LOCAL_CACHE_TTL_MS,
    authNegativeTtlMs: config.AUTH_NEGATIVE_CACHE_TTL_MS, accessLogLevel: config.ACCESS_LOG_LEVEL,
    accessLogger: createFixedFieldsLogger('gateway', config.LOG_LEVEL),
    bodyLimit: config.BODY_LIMIT, trustProxy: config.TRUST_PROXY, version: config.GITLAB_VERSION, revision: process.env.GIT_REVISION ?? 'glp',
    gitHttp: { repoAdminUrl: config.REPO_ADMIN_HTTP_URL, actorSecret: config.ACTOR_SECRET },
  });
  const timeouts = serverTimeoutOptions({
    headersMs: config.HTTP_HEADERS_TIMEOUT_MS, requestMs: config.HTTP_REQUEST_TIMEOUT_MS, keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  });
  const server = createExpressServer(app, timeouts).listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  // In-flight requests get half the shutdown budget; then their connections are cut.
  onShutdown('http server', () => closeHttpServer(server, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2)));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ port: config.PORT }, 'gateway ready');
}

runMain('gateway', main);
