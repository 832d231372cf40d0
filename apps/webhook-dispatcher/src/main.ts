import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { hooksV1, identityV1, projectsV1, repoAdminV1, webhookDispatcherV1 } from '@glp/proto';
import {
  bindService, createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startGrpcServer, startMetricsServer,
} from '@glp/service-kit';
import type { DispatcherDeps } from './app/deps';
import { DispatchLoop } from './app/dispatch-loop';
import { setQueueDepthSource } from './app/metrics';
import { NotificationListener } from './app/notifications';
import { startRetention } from './app/retention';
import { UrlSettings } from './app/url-settings';
import { WebhookSender } from './app/webhook-sender';
import { loadWebhookDispatcherConfig } from './config';
import { dispatcherHandlers, settingsChannel } from './events/dispatcher-consumer';
import { webhookDispatcherService } from './grpc/webhook-dispatcher-service';
import { migrateWebhookDispatcher } from './migrations';
import { countOpenDeliveries, deliveriesChannel } from './store/deliveries-store';

async function main(): Promise<void> {
  const config = loadWebhookDispatcherConfig();
  const logger = createLogger('webhook-dispatcher', config.LOG_LEVEL);
  const applied = await migrateWebhookDispatcher(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('webhook-dispatcher');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'webhook-dispatcher' });
  onShutdown('db pool', () => pool.end());
  const clientOpts = { actorSecret: config.ACTOR_SECRET };
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, clientOpts);
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, clientOpts);
  const repoAdmin = createGrpcClient(repoAdminV1.RepoAdminServiceClient, config.REPO_ADMIN_GRPC_ADDR, clientOpts);
  const hooks = createGrpcClient(hooksV1.HooksServiceClient, config.HOOKS_GRPC_ADDR, clientOpts);
  onShutdown('service clients', () => {
    for (const c of [identity, projects, repoAdmin, hooks]) c.close();
  });

  const urlSettings = new UrlSettings(identity, logger);
  urlSettings.start(config.SETTINGS_REFRESH_MS);
  onShutdown('url settings', () => urlSettings.stop());
  const sender = new WebhookSender(() => urlSettings.current(), { timeoutMs: config.WEBHOOK_TIMEOUT_MS });

  const deps: DispatcherDeps = {
    pool, hooks, projects, repoAdmin, identity, sender, logger,
    topic: topicFor('webhook-dispatcher', config.KAFKA_TOPIC_PREFIX),
    settings: {
      externalUrl: config.EXTERNAL_URL, gitlabVersion: config.GITLAB_VERSION, pushEventHooksLimit: config.PUSH_EVENT_HOOKS_LIMIT,
      retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxMs: config.WEBHOOK_RETRY_MAX_MS, maxAttempts: config.WEBHOOK_MAX_ATTEMPTS },
      disable: { baseMs: config.WEBHOOK_DISABLE_BASE_MS, maxMs: config.WEBHOOK_DISABLE_MAX_MS },
      leaseMs: config.DISPATCH_LEASE_MS, logRetentionDays: config.LOG_RETENTION_DAYS,
    },
  };
  setQueueDepthSource(() => countOpenDeliveries(pool));

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${config.KAFKA_CONSUMER_GROUP}`, consumerName: 'webhook-dispatcher',
    topics: ['repo-admin', 'hooks', 'identity'].map((t) => topicFor(t as 'repo-admin' | 'hooks' | 'identity', config.KAFKA_TOPIC_PREFIX)), logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: dispatcherHandlers(deps, urlSettings),
  });
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const loop = new DispatchLoop(deps, { concurrency: config.DISPATCH_CONCURRENCY, pollMs: config.WEBHOOK_POLL_MS, ready: urlSettings.whenLoaded() });
  const listener = new NotificationListener(config.DATABASE_URL, {
    [deliveriesChannel(config.DB_SCHEMA)]: () => loop.kick(),
    [settingsChannel(config.DB_SCHEMA)]: () => void urlSettings.reload(),
  }, logger);
  await listener.start();
  loop.start();
  onShutdown('dispatch loop', async () => {
    await loop.stop(config.SHUTDOWN_TIMEOUT_MS / 2);
    await listener.stop();
    await sender.close();
  });
  const retention = startRetention(deps, logger, config.RETENTION_INTERVAL_MS);
  onShutdown('retention', () => retention.stop());

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.webhook_dispatcher.v1.WebhookDispatcherService',
      definition: webhookDispatcherV1.WebhookDispatcherServiceService,
      implementation: bindService(webhookDispatcherV1.WebhookDispatcherServiceService, webhookDispatcherService(deps), { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port }, 'webhook-dispatcher ready');
}

runMain('webhook-dispatcher', main);
