/**
 * Users' levels in groups (identity's GetUserGroupAccess) are kept by projects in-process for a few seconds. identity
 * publishes on this channel, after the commit and before it answers, whose levels changed: a JSON
 * `{"users":[<id>, …]}` after a membership was added, changed or removed, or `{"all":true}` when a group was created
 * under a parent (its ancestors' members gain it) or a group tree deleted. Every projects process drops those entries.
 * The channel carries the deployment's KAFKA_TOPIC_PREFIX: user ids mean something only within one deployment (one
 * set of schemas), and stacks that share a Redis (the test suite's) leave each other's caches alone.
 */
export function groupAccessInvalidationChannel(topicPrefix: string): string {
  return `${topicPrefix}glp:group-access:invalidate`;
}

/** Whose group levels changed: some users, or anyone's. */
export type GroupAccessChange = { users: readonly number[] } | { all: true };

export function encodeGroupAccessChange(change: GroupAccessChange): string {
  return 'all' in change ? '{"all":true}' : JSON.stringify({ users: change.users });
}

/** A message that does not read as a list of user ids counts as everyone's change: dropping too much is safe. */
export function parseGroupAccessChange(message: string): GroupAccessChange {
  try {
    const parsed: unknown = JSON.parse(message);
    if (parsed && typeof parsed === 'object' && 'users' in parsed && Array.isArray(parsed.users) && parsed.users.every((u) => Number.isSafeInteger(u))) {
      return { users: parsed.users as number[] };
    }
  } catch {
    // falls through
  }
  return { all: true };
}
