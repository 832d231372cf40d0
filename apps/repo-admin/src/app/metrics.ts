import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '@glp/service-kit';

/** The pre-receive check of a push (every policy, push rules included), by whether the project's push rule was active. */
export const preReceiveDuration = new Histogram({
  name: 'repo_admin_pre_receive_check_seconds',
  help: 'Time of the pre-receive check of a push (policies and push rules), by push_rules_active and outcome (allowed, refused)',
  labelNames: ['push_rules_active', 'outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

/** Pushes whose events wait on disk for PostgreSQL (PushEventHandOff): above 0 for long, the database is unreachable. */
export const spooledPushes = new Gauge({
  name: 'repo_admin_push_events_spooled',
  help: 'Pushes whose Push/TagPush/RepositoryChanged events wait in the spool on disk for the database',
  registers: [registry],
});

/** Git over HTTP requests refused before git ran: `client` (429), `storage` (503); and gzip bodies cut at their cap (413). */
export const gitHttpRefused = new Counter({
  name: 'repo_admin_git_http_refused_total',
  help: 'Git over HTTP requests refused by the concurrency limits (reason client: 429, storage: 503) or cut at the decompressed body cap (reason body_too_large: 413)',
  labelNames: ['reason'],
  registers: [registry],
});

/** Repository jobs stopped at their kind's time limit. */
export const jobsAtTimeLimit = new Counter({
  name: 'repo_admin_jobs_time_limit_reached_total',
  help: 'Repository job attempts stopped at their kind\'s time limit (JOB_TIME_LIMIT_MS, JOB_SLOW_TIME_LIMIT_MS), by kind',
  labelNames: ['kind'],
  registers: [registry],
});
