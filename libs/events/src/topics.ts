/** The aggregates that publish domain events, one topic each. */
export type Aggregate = 'identity' | 'projects' | 'access-requests' | 'repo-admin' | 'hooks' | 'webhook-dispatcher';

/** Base topic names (without prefix). Messages are keyed by aggregate key, e.g. "project:42". */
export const TOPICS: Readonly<Record<Aggregate, string>> = Object.freeze({
  identity: 'gitlab.identity.events',
  projects: 'gitlab.projects.events',
  'access-requests': 'gitlab.access_requests.events',
  'repo-admin': 'gitlab.repo_admin.events',
  hooks: 'gitlab.hooks.events',
  'webhook-dispatcher': 'gitlab.webhook_dispatcher.events',
});

const TOPIC_RE = /^[a-zA-Z0-9._-]{1,249}$/;

/** KAFKA_TOPIC_PREFIX from the environment ('' when unset). */
export function topicPrefixFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.KAFKA_TOPIC_PREFIX ?? '';
}

/**
 * The topic of an aggregate's events. A prefix (tests, shared clusters) is joined with
 * a dot unless it already ends with '.', '-' or '_': topicFor('projects', 't1') → "t1.gitlab.projects.events".
 * Without a prefix argument, KAFKA_TOPIC_PREFIX is used.
 */
export function topicFor(aggregate: Aggregate, prefix: string = topicPrefixFromEnv()): string {
  const base = TOPICS[aggregate];
  if (base === undefined) throw new Error(`unknown aggregate: ${String(aggregate)}`);
  const topic = prefix === '' ? base : /[._-]$/.test(prefix) ? `${prefix}${base}` : `${prefix}.${base}`;
  if (!TOPIC_RE.test(topic)) throw new Error(`invalid Kafka topic name: ${topic}`);
  return topic;
}
