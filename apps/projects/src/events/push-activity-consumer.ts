import type { PoolClient } from '@glp/db';
import type { repositoryEventsV1 } from '@glp/proto';
import { pushEventOf } from '../domain/project-event-rules';
import { insertPushEvent } from '../store/project-events-store';

/**
 * Push / TagPush (repo-admin: a ref moved by a git push or a pull-mirror update) → the project's push event, authored
 * by the pusher, dated when the push landed. Once per event id (the consumer's idempotency, in this transaction); a
 * bulk push's refs write one event between them; a project removed meanwhile is skipped.
 */
export async function onRefPushed(client: PoolClient, refType: 'branch' | 'tag', e: repositoryEventsV1.Push | repositoryEventsV1.TagPush): Promise<void> {
  const pusherId = e.pusher?.userId ?? 0;
  if (pusherId <= 0) return; // GitLab's events need an author; a push without a user has none to show
  const pushedAt = e.pushedAt ?? new Date();
  const { payload, bulkKey } = pushEventOf({
    refType, ref: e.ref, before: e.before, after: e.after, commitMessages: e.commits.map((c) => c.message),
    totalCommitsCount: e.totalCommitsCount, refsInPush: e.refsInPush, pusherId, pushedAt,
  });
  await insertPushEvent(client, { projectId: e.projectId, authorId: pusherId, payload, bulkKey, createdAt: pushedAt });
}
