import { Redis } from 'ioredis';
import { createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startMetricsServer } from '@glp/service-kit';
import { createApp } from './app';
import { createServices } from './clients';
import { loadGatewayConfig } from './config';
import { ReadinessProbe } from './http/readiness';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('gateway');
  const redis = new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (err) => logger.debug({ err }, 'redis error'));
  onShutdown('redis', async () => void redis.disconnect());
  const services = createServices(config);
  onShutdown('grpc clients', () => services.close());
  const readiness = new ReadinessProbe({ identity: config.IDENTITY_GRPC_ADDR, projects: config.PROJECTS_GRPC_ADDR }, redis);
  onShutdown('readiness', () => readiness.close());

  const app = createApp({
    services, redis, readiness, logger, externalUrl: config.EXTERNAL_URL, authCacheTtlSeconds: config.AUTH_CACHE_TTL_SECONDS,
    bodyLimit: config.BODY_LIMIT, trustProxy: config.TRUST_PROXY, version: config.GITLAB_VERSION, revision: process.env.GIT_REVISION ?? 'glp',
  });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65000;
  onShutdown('http server', () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  }));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ port: config.PORT }, 'gateway ready');
}

runMain('gateway', main);
