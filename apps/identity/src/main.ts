import { createPool, migrationPhase } from '@glp/db';
import { OutboxRelay, outboxRetention, topicFor } from '@glp/events';
import { identityV1 } from '@glp/proto';
import {
  bindService, createLogger, initMetrics, installShutdownHandlers, onShutdown, startGrpcServer, runMain, startMetricsServer,
} from '@glp/service-kit';
import { ensureApplicationSettings } from './app/application-settings';
import { startGroupRemoval } from './app/groups';
import { ensureRootUser } from './bootstrap/root-user';
import { loadIdentityConfig } from './config';
import { Redis } from 'ioredis';
import { noAuthCache, redisAuthCacheInvalidator } from './events/auth-cache-invalidator';
import { noGroupAccessCache, redisGroupAccessInvalidator } from './events/group-access-invalidator';
import { identityService } from './grpc/identity-service';
import { migrateIdentity } from './migrations';

async function main(): Promise<void> {
  const config = loadIdentityConfig();
  const logger = createLogger('identity', config.LOG_LEVEL);
  const applied = await migrateIdentity(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('identity');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'identity' });
  onShutdown('db pool', () => pool.end());
  const topic = topicFor('identity', config.KAFKA_TOPIC_PREFIX);

  await ensureRootUser({
    pool, topic, logger, rootToken: config.GITLAB_ROOT_TOKEN, rootPassword: config.GITLAB_ROOT_PASSWORD,
    rootEmail: config.GITLAB_ROOT_EMAIL, dataDir: config.DATA_DIR,
  });
  const settingsDefaults = {
    allowLocalWebhooks: config.ALLOW_LOCAL_WEBHOOKS, outboundAllowlist: config.OUTBOUND_ALLOWLIST, deletionAdjournedPeriod: config.DELETION_ADJOURNED_PERIOD,
  };
  await ensureApplicationSettings({ pool, topic, defaults: settingsDefaults });

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  // One connection for the caches' invalidations: the gateways' token cache and projects' group levels.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  redis?.on('error', (err) => logger.debug({ err }, 'cache invalidation redis error'));
  const authCache = redis ? redisAuthCacheInvalidator(redis, logger) : noAuthCache;
  const groupAccess = redis ? redisGroupAccessInvalidator(redis, config.KAFKA_TOPIC_PREFIX, logger) : noGroupAccessCache;
  onShutdown('cache invalidations', async () => {
    await authCache.close();
    groupAccess.close();
    redis?.disconnect();
  });

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.identity.v1.IdentityService',
      definition: identityV1.IdentityServiceService,
      implementation: bindService(identityV1.IdentityServiceService, identityService({ pool, topic, logger, countLimit: config.LIST_COUNT_LIMIT, authCache, groupAccess, settingsDefaults }), {
        actorSecret: config.ACTOR_SECRET, logger,
      }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  const groupRemoval = startGroupRemoval({ pool, topic, countLimit: config.LIST_COUNT_LIMIT, groupAccess }, logger, config.GROUP_REMOVAL_INTERVAL_MS);
  onShutdown('group removal', () => groupRemoval.stop());
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'identity ready');
}

runMain('identity', main);
