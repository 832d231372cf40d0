import type { Pool, PoolClient } from '@glp/db';
import type { EventListFilter, PushPayload, RecordedAction } from '../domain/project-event-rules';
import type { UserReplica } from './users-replica-store';

type Queryable = Pool | PoolClient;

export interface ProjectEventRow {
  id: number;
  project_id: number;
  author_id: number;
  action: RecordedAction;
  created_at: Date;
  push: PushPayload | null;
  /** From the users read model; null when it lacks the author. */
  author: UserReplica | null;
}

/** Events without a payload (created, joined, left) of one project, one per author, in the caller's transaction. */
export async function insertProjectEvents(db: PoolClient, projectId: number, action: Exclude<RecordedAction, 'pushed'>, authorIds: readonly number[]): Promise<void> {
  if (authorIds.length === 0) return;
  await db.query(
    'INSERT INTO project_events (project_id, author_id, action) SELECT $1, a, $2 FROM unnest($3::bigint[]) WITH ORDINALITY AS t(a, n) ORDER BY n',
    [projectId, action, authorIds],
  );
}

/**
 * A push event, unless the project is gone (a push consumed after its project was removed: nothing to record) or it
 * is a bulk push whose event another ref of the same push already wrote. The project row is key-share locked so that
 * a concurrent removal waits for this insert (then cascades it) instead of failing it.
 */
export async function insertPushEvent(
  db: PoolClient, e: { projectId: number; authorId: number; payload: PushPayload; bulkKey: string | null; createdAt: Date },
): Promise<void> {
  const p = e.payload;
  await db.query(
    `INSERT INTO project_events (project_id, author_id, action, push_commit_count, push_action, push_ref_type, push_commit_from,
       push_commit_to, push_ref, push_commit_title, push_ref_count, bulk_push_key, created_at)
     SELECT p.id, $2, 'pushed', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM projects p WHERE p.id = $1 FOR KEY SHARE
     ON CONFLICT (project_id, bulk_push_key) WHERE bulk_push_key IS NOT NULL DO NOTHING`,
    [e.projectId, e.authorId, p.commitCount, p.action, p.refType, p.commitFrom, p.commitTo, p.ref, p.commitTitle, p.refCount, e.bulkKey, e.createdAt],
  );
}

const ROW = `e.id, e.project_id, e.author_id, e.action, e.created_at,
  CASE WHEN e.action = 'pushed' THEN json_build_object('commitCount', e.push_commit_count, 'action', e.push_action,
    'refType', e.push_ref_type, 'commitFrom', e.push_commit_from, 'commitTo', e.push_commit_to, 'ref', e.push_ref,
    'commitTitle', e.push_commit_title, 'refCount', e.push_ref_count) END AS push,
  (SELECT row_to_json(u) FROM (SELECT id, username, name, state, avatar_url FROM users WHERE id = e.author_id) u) AS author`;

/**
 * One page of a project's events (authors from the users read model in the same statement) and their total, counted
 * up to `countLimit` (beyond it, or with countLimit 0: -1). Every filter is served by an index led by project_id.
 */
export async function listProjectEvents(
  db: Queryable, projectId: number, f: EventListFilter, page: { limit: number; offset: number; countLimit: number },
): Promise<{ rows: ProjectEventRow[]; total: number }> {
  if (f.none) return { rows: [], total: 0 };
  const params: unknown[] = [projectId];
  const where = ['e.project_id = $1'];
  if (f.action) where.push(`e.action = $${params.push(f.action)}`);
  if (f.withoutPushes) where.push("e.action <> 'pushed'");
  if (f.createdBefore) where.push(`e.created_at < $${params.push(f.createdBefore)}`);
  if (f.createdFrom) where.push(`e.created_at >= $${params.push(f.createdFrom)}`);
  const cond = where.join(' AND ');
  const n = params.length;
  const [pageRows, count] = await Promise.all([
    db.query<ProjectEventRow>(
      `SELECT ${ROW} FROM project_events e WHERE ${cond} ORDER BY e.id ${f.order === 'asc' ? 'ASC' : 'DESC'} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.limit, page.offset],
    ),
    page.countLimit > 0
      ? db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM project_events e WHERE ${cond} LIMIT $${n + 1}) c`, [...params, page.countLimit + 1])
      : undefined,
  ]);
  const total = count ? count.rows[0]!.n : -1;
  return { rows: pageRows.rows, total: total > page.countLimit ? -1 : total };
}
