import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, EventTypes, onEvent, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { accessRequestsV1, identityV1, projectsV1 } from '@glp/proto';
import {
  bindService, createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startGrpcServer, startMetricsServer,
} from '@glp/service-kit';
import { startApprovalCompletion } from './app/complete-approvals';
import { loadAccessRequestsConfig } from './config';
import { onNamespaceDeleted, onProjectDeleted } from './events/source-consumer';
import { accessRequestsService } from './grpc/access-requests-service';
import { migrateAccessRequests } from './migrations';

async function main(): Promise<void> {
  const config = loadAccessRequestsConfig();
  const logger = createLogger('access-requests', config.LOG_LEVEL);
  const applied = await migrateAccessRequests(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('access-requests');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'access-requests' });
  onShutdown('db pool', () => pool.end());
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  onShutdown('service clients', () => {
    identity.close();
    projects.close();
  });

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  // Deleted projects and groups take their access requests with them.
  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${config.KAFKA_CONSUMER_GROUP}`, consumerName: 'access-requests',
    topics: [topicFor('projects', config.KAFKA_TOPIC_PREFIX), topicFor('identity', config.KAFKA_TOPIC_PREFIX)], logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: {
      ...onEvent(EventTypes.ProjectDeleted, ({ client, payload }) => onProjectDeleted(client, payload)),
      ...onEvent(EventTypes.NamespaceDeleted, ({ client, payload }) => onNamespaceDeleted(client, payload)),
    },
  });
  // Non-blocking: the API serves during a Kafka outage; the consumer catches up when it returns.
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const deps = { pool, identity, projects, topic: topicFor('access-requests', config.KAFKA_TOPIC_PREFIX) };
  const completion = startApprovalCompletion(deps, logger, config.APPROVAL_RECOVERY_INTERVAL_MS, config.APPROVAL_RECOVERY_AFTER_MS);
  onShutdown('approval completion', () => completion.stop());

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.access_requests.v1.AccessRequestsService',
      definition: accessRequestsV1.AccessRequestsServiceService,
      implementation: bindService(accessRequestsV1.AccessRequestsServiceService, accessRequestsService(deps), { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'access-requests ready');
}

runMain('access-requests', main);
