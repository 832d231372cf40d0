import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, EventTypes, onEvent, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { identityV1, projectsV1, pushRulesV1 } from '@glp/proto';
import {
  bindService, createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startGrpcServer, startMetricsServer,
} from '@glp/service-kit';
import type { PushRulesDeps } from './app/deps';
import { loadPushRulesConfig } from './config';
import { onProjectDeleted } from './events/project-consumers';
import { pushRulesService } from './grpc/push-rules-service';
import { migratePushRules } from './migrations';

async function main(): Promise<void> {
  const config = loadPushRulesConfig();
  const logger = createLogger('push-rules', config.LOG_LEVEL);
  const applied = await migratePushRules(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('push-rules');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'push-rules' });
  onShutdown('db pool', () => pool.end());
  const clientOpts = { actorSecret: config.ACTOR_SECRET };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, clientOpts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, clientOpts);
  onShutdown('service clients', () => {
    identity.close();
    projects.close();
  });

  // The schema has the outbox tables of libs/events; nothing publishes yet, the relay keeps the house layout.
  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  // Deleted projects take their push rule with them.
  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${config.KAFKA_CONSUMER_GROUP}`, consumerName: 'push-rules',
    topics: [topicFor('projects', config.KAFKA_TOPIC_PREFIX)], logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: {
      ...onEvent(EventTypes.ProjectDeleted, ({ client, payload }) => onProjectDeleted(client, payload)),
    },
  });
  // Non-blocking: the API serves during a Kafka outage; the consumer catches up when it returns.
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const deps: PushRulesDeps = { pool, identity, projects };
  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.push_rules.v1.PushRulesService',
      definition: pushRulesV1.PushRulesServiceService,
      implementation: bindService(pushRulesV1.PushRulesServiceService, pushRulesService(deps), { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'push-rules ready');
}

runMain('push-rules', main);
