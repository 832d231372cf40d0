import { createPool, migrationPhase } from '@glp/db';
import { EventConsumer, EventTypes, onEvent, OutboxRelay, outboxRetention, processedEventsRetention, topicFor } from '@glp/events';
import { identityV1, projectsV1, pushRulesV1, repoAdminV1 } from '@glp/proto';
import {
  createGrpcClient, createLogger, initMetrics, installShutdownHandlers, onShutdown, runMain, startGrpcServer, startMetricsServer,
} from '@glp/service-kit';
import { startJobWorker } from './app/job-worker';
import { consumerGroupFor } from './domain/storage-rules';
import { loadRepoAdminConfig, storageRoot } from './config';
import { onProjectCreated, onProjectDeleted, onProjectForked, onProjectUpdated } from './events/project-consumer';
import { startMirrorScheduler } from './app/pull-mirror';
import { repoAdminImplementation } from './grpc/implementation';
import { startGitOverHttp } from './http/git-over-http';
import { migrateRepoAdmin } from './migrations';
import { sweepTemp } from './disk/upload-files';
import { attachmentLimitBytes } from './domain/upload-rules';
import { listenForJobs } from './store/job-notifications';

async function main(): Promise<void> {
  const config = loadRepoAdminConfig();
  const logger = createLogger('repo-admin', config.LOG_LEVEL);
  const applied = await migrateRepoAdmin(config.DATABASE_URL, config.DB_SCHEMA, { phase: migrationPhase(process.argv, config) });
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (process.argv[2] === 'migrate') return;

  installShutdownHandlers(logger, config.SHUTDOWN_TIMEOUT_MS);
  initMetrics('repo-admin');
  const pool = createPool({ url: config.DATABASE_URL, schema: config.DB_SCHEMA, max: config.DB_POOL_MAX, applicationName: 'repo-admin' });
  onShutdown('db pool', () => pool.end());
  const identity = createGrpcClient(identityV1.IdentityServiceClient, config.IDENTITY_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  const projects = createGrpcClient(projectsV1.ProjectsServiceClient, config.PROJECTS_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  const pushRules = createGrpcClient(pushRulesV1.PushRulesServiceClient, config.PUSH_RULES_GRPC_ADDR, { actorSecret: config.ACTOR_SECRET });
  onShutdown('service clients', () => {
    identity.close();
    projects.close();
    pushRules.close();
  });

  const relay = new OutboxRelay({
    databaseUrl: config.DATABASE_URL, schema: config.DB_SCHEMA, brokers: config.KAFKA_BROKERS, logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...outboxRetention(config),
  });
  await relay.start();
  onShutdown('outbox relay', () => relay.stop());

  const deps = {
    pool, identity, projects, pushRules, topic: topicFor('repo-admin', config.KAFKA_TOPIC_PREFIX), logger, storage: config.REPOSITORY_STORAGE,
    remoteRules: { allowLocalNetwork: config.IMPORT_ALLOW_LOCAL_NETWORK, allowlist: config.IMPORT_URL_ALLOWLIST },
    storageRoot: storageRoot(config), git: { gitBin: config.GIT_BIN, timeoutMs: config.GIT_TIMEOUT_MS },
    jobs: { concurrency: config.JOB_CONCURRENCY, quickConcurrency: config.JOB_QUICK_CONCURRENCY, quickTimeLimitMs: config.JOB_TIME_LIMIT_MS, slowTimeLimitMs: config.JOB_SLOW_TIME_LIMIT_MS },
    jobMaxAttempts: config.JOB_MAX_ATTEMPTS, mirrorIntervalMs: config.MIRROR_INTERVAL_MS,
    maxAttachmentBytes: attachmentLimitBytes(config.MAX_ATTACHMENT_SIZE),
    repositoryWaitMs: config.GIT_REPOSITORY_WAIT_MS,
  };
  // Uploads a process that died mid-transfer left half-written (never visible: no row points at them).
  await sweepTemp(deps.storageRoot, 60 * 60_000).catch((err: unknown) => logger.warn({ err }, 'upload temporary files not swept'));
  const worker = startJobWorker(deps, logger, config.JOB_POLL_MS);
  const mirrors = startMirrorScheduler(deps, logger, config.MIRROR_POLL_MS);
  onShutdown('mirror scheduler', () => mirrors.stop());
  onShutdown('job worker', () => worker.stop());
  const notifications = listenForJobs(config.DATABASE_URL, config.DB_SCHEMA, logger, () => worker.wake());
  onShutdown('job notifications', () => notifications.stop());

  // Projects' events become repository jobs (created, forked, deleted).
  const consumer = new EventConsumer({
    pool, brokers: config.KAFKA_BROKERS, groupId: `${config.KAFKA_TOPIC_PREFIX}${consumerGroupFor(config.KAFKA_CONSUMER_GROUP, config.REPOSITORY_STORAGE)}`, consumerName: 'repo-admin',
    topics: [topicFor('projects', config.KAFKA_TOPIC_PREFIX)], logger,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...processedEventsRetention(config),
    fromBeginning: true,
    handlers: {
      ...onEvent(EventTypes.ProjectCreated, ({ client, payload }) => onProjectCreated(client, payload, config.REPOSITORY_STORAGE)),
      ...onEvent(EventTypes.ProjectForked, ({ client, payload }) => onProjectForked(client, payload, config.REPOSITORY_STORAGE)),
      ...onEvent(EventTypes.ProjectDeleted, ({ client, payload }) => onProjectDeleted(client, payload, config.REPOSITORY_STORAGE)),
      ...onEvent(EventTypes.ProjectUpdated, ({ client, payload }) => onProjectUpdated(client, payload, config.REPOSITORY_STORAGE)),
    },
  });
  consumer.startInBackground();
  onShutdown('event consumer', () => consumer.stop());

  const grpc = await startGrpcServer({
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    logger,
    services: [{
      name: 'gitlab.repo_admin.v1.RepoAdminService',
      definition: repoAdminV1.RepoAdminServiceService,
      implementation: repoAdminImplementation(deps, { actorSecret: config.ACTOR_SECRET, logger }),
    }],
  });
  onShutdown('grpc server', () => grpc.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  const gitHttp = await startGitOverHttp(deps, {
    host: config.HTTP_HOST, port: config.HTTP_PORT, actorSecret: config.ACTOR_SECRET, logger, repositoryWaitMs: config.GIT_REPOSITORY_WAIT_MS,
    limits: {
      storageConcurrency: config.GIT_HTTP_CONCURRENCY, clientConcurrency: config.GIT_HTTP_CLIENT_CONCURRENCY,
      maxDecompressedBytes: config.GIT_HTTP_MAX_DECOMPRESSED_MB * 1024 * 1024,
    },
  });
  onShutdown('git http server', () => gitHttp.stop(config.SHUTDOWN_TIMEOUT_MS / 2));
  await startMetricsServer(config.METRICS_PORT);
  logger.info({ grpc_port: grpc.port, http_port: gitHttp.port, storage_root: deps.storageRoot }, 'repo-admin ready');
}

runMain('repo-admin', main);
