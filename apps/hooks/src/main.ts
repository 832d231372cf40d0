import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, EventTypes, onEvent, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { hooksV1, identityV1, projectsV1, webhookDispatcherV1 } from '@glp/proto';
import { SecretBox } from '@glp/secret-box';
import {
  bindService, createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startGrpcServer, startMetricsServer,
} from '@glp/service-kit';
import type { HooksDeps } from './app/deps';
import { loadHooksConfig } from './config';
import { onHookHealthChanged, onProjectDeleted } from './events/hook-consumers';
import { hooksService } from './grpc/hooks-service';
import { migrateHooks } from './migrations';

async function main(): Promise<void> {
  const config = loadHooksConfig();
  const logger = createLogger('hooks', config.LOG_LEVEL);
  const applied = await migrateHooks(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('hooks');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'hooks' });
  onShutdown('db pool', () => pool.end());
  const clientOpts = { actorSecret: config.ACTOR_SECRET };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, clientOpts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, clientOpts);
  const dispatcher = createGrpcClient(webhookDispatcherV1.WebhookDispatcherServiceClient, config.WEBHOOK_DISPATCHER_GRPC_ADDR, clientOpts);
  onShutdown('service clients', () => {
    identity.close();
    projects.close();
    dispatcher.close();
  });

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  const topic = topicFor('hooks', config.KAFKA_TOPIC_PREFIX);
  // Deleted projects take their hooks with them; the dispatcher reports each hook's auto-disable state.
  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${config.KAFKA_CONSUMER_GROUP}`, consumerName: 'hooks',
    topics: [topicFor('projects', config.KAFKA_TOPIC_PREFIX), topicFor('webhook-dispatcher', config.KAFKA_TOPIC_PREFIX)], logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: {
      ...onEvent(EventTypes.ProjectDeleted, ({ client, payload }) => onProjectDeleted(client, topic, payload)),
      ...onEvent(EventTypes.HookHealthChanged, ({ client, payload }) => onHookHealthChanged(client, payload)),
    },
  });
  // Non-blocking: the API serves during a Kafka outage; the consumer catches up when it returns.
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const deps: HooksDeps = {
    pool, identity, projects, dispatcher, topic, projectHooksLimit: config.PROJECT_HOOKS_LIMIT,
    secretBox: new SecretBox(config.HOOKS_SECRETS_KEY || config.ACTOR_SECRET),
  };
  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.hooks.v1.HooksService',
      definition: hooksV1.HooksServiceService,
      implementation: bindService(hooksV1.HooksServiceService, hooksService(deps), { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'hooks ready');
}

runMain('hooks', main);
