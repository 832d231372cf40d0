import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, EventTypes, onEvent, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { identityV1 } from '@glp/proto';
import {
  bindService, createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, startGrpcServer,
  runMain, startMetricsServer,
} from '@glp/service-kit';
import { loadProjectsConfig } from './config';
import { SecretBox } from '@glp/secret-box';
import { startDeletionPurge } from './app/delete-project';
import { onNamespaceChanged, onNamespaceDeleted } from './events/namespace-consumer';
import { onRefPushed } from './events/push-activity-consumer';
import { onRepositoryChanged } from './events/repository-consumer';
import { onRepositoryImportStateChanged } from './events/repository-import-consumer';
import { onRepositoryStatisticsChanged } from './events/repository-statistics-consumer';
import { onUserDeleted, onUserSnapshot } from './events/user-consumer';
import { servedProjectsService } from './grpc/projects-service';
import { EncodedProjectCache } from './grpc/encoded-projects';
import { GroupAccessCache } from './cache/group-access-cache';
import { ProjectPathHints } from './cache/project-path-hints';
import { subscribeToGroupAccessChanges } from './cache/group-access-subscription';
import { migrateProjects } from './migrations';

async function main(): Promise<void> {
  const config = loadProjectsConfig();
  const logger = createLogger('projects', config.LOG_LEVEL);
  const applied = await migrateProjects(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('projects');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'projects' });
  onShutdown('db pool', () => pool.end());
  const genericPlanPool = config.DB_GENERIC_PLAN_POOL_MAX > 0
    ? createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_GENERIC_PLAN_POOL_MAX, applicationName: 'projects-generic-plans', genericPlans: true })
    : undefined;
  if (genericPlanPool) onShutdown('db pool (generic plans)', () => genericPlanPool.end());
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  onShutdown('identity client', () => identity.close());

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${config.KAFKA_CONSUMER_GROUP}`, consumerName: 'projects',
    topics: [topicFor('identity', config.KAFKA_TOPIC_PREFIX), topicFor('repo-admin', config.KAFKA_TOPIC_PREFIX)], logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: {
      ...onEvent(EventTypes.NamespaceChanged, ({ client, payload }) => onNamespaceChanged(client, payload)),
      ...onEvent(EventTypes.NamespaceDeleted, ({ client, payload }) => onNamespaceDeleted(client, payload, topicFor('projects', config.KAFKA_TOPIC_PREFIX))),
      ...onEvent(EventTypes.UserCreated, ({ client, payload }) => onUserSnapshot(client, payload)),
      ...onEvent(EventTypes.UserChanged, ({ client, payload }) => onUserSnapshot(client, payload)),
      ...onEvent(EventTypes.UserDeleted, ({ client, payload }) => onUserDeleted(client, payload)),
      ...onEvent(EventTypes.Push, ({ client, payload }) => onRefPushed(client, 'branch', payload)),
      ...onEvent(EventTypes.TagPush, ({ client, payload }) => onRefPushed(client, 'tag', payload)),
      ...onEvent(EventTypes.RepositoryChanged, ({ client, payload }) => onRepositoryChanged(client, payload)),
      ...onEvent(EventTypes.RepositoryImportStateChanged, ({ client, payload }) => onRepositoryImportStateChanged(client, payload, topicFor('projects', config.KAFKA_TOPIC_PREFIX))),
      ...onEvent(EventTypes.RepositoryStatisticsChanged, ({ client, payload, envelope }) => onRepositoryStatisticsChanged(client, payload, envelope.occurredAt)),
    },
  });
  // Non-blocking: the API serves during a Kafka outage; the consumer catches up when it returns.
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const groupAccessCache = new GroupAccessCache({ ttlMs: config.GROUP_ACCESS_CACHE_TTL_MS, maxLevels: config.GROUP_ACCESS_CACHE_LEVELS });
  if (config.REDIS_URL && groupAccessCache.enabled) {
    const subscription = subscribeToGroupAccessChanges(config.REDIS_URL, config.KAFKA_TOPIC_PREFIX, groupAccessCache, logger);
    onShutdown('group access invalidations', () => subscription.close());
  }

  const deps = {
    pool, genericPlanPool, identity, groupAccessCache, pathHints: new ProjectPathHints(config.PROJECT_PATH_HINTS), topic: topicFor('projects', config.KAFKA_TOPIC_PREFIX), countLimit: config.LIST_COUNT_LIMIT,
    secretBox: new SecretBox(config.SECRETS_KEY || config.ACTOR_SECRET),
    importRules: { allowLocalNetwork: config.IMPORT_ALLOW_LOCAL_NETWORK, allowlist: config.IMPORT_URL_ALLOWLIST },
    repositoryStorages: config.REPOSITORY_STORAGES,
  };
  const purge = startDeletionPurge(deps, logger, config.PURGE_INTERVAL_MS);
  onShutdown('deletion purge', () => purge.stop());

  const { definition, handlers } = servedProjectsService(deps, new EncodedProjectCache(config.ENCODED_PROJECT_CACHE_BYTES));
  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.projects.v1.ProjectsService',
      definition,
      implementation: bindService(definition, handlers, { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'projects ready');
}

runMain('projects', main);
