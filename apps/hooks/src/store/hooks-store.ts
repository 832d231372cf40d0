import type { Pool, PoolClient } from '@glp/db';
import { EVENT_FLAGS, type EventFlag, type EventFlags } from '../domain/hook-attributes';

type Queryable = Pool | PoolClient;

/** A `hooks` row (secrets still sealed). */
export interface HookRow extends Record<EventFlag, boolean | null> {
  id: number;
  project_id: number;
  url_sealed: Buffer;
  url_display: string;
  token_sealed: Buffer | null;
  name: string;
  description: string;
  enable_ssl_verification: boolean;
  push_events_branch_filter: string | null;
  branch_filter_strategy: string;
  custom_webhook_template: string | null;
  url_variable_keys: string[];
  url_variables_sealed: Buffer | null;
  custom_header_keys: string[];
  custom_headers_sealed: Buffer | null;
  alert_status: string;
  disabled_until: Date | null;
  health_version: number;
  created_at: Date;
  updated_at: Date;
}

/** What a create or an edit writes (sealed by the caller). */
export interface HookRecord {
  urlSealed: Buffer;
  urlDisplay: string;
  tokenSealed: Buffer | null;
  name: string;
  description: string;
  events: EventFlags;
  enableSslVerification: boolean;
  pushEventsBranchFilter: string | null;
  branchFilterStrategy: string;
  customWebhookTemplate: string | null;
  urlVariableKeys: string[];
  urlVariablesSealed: Buffer | null;
  customHeaderKeys: string[];
  customHeadersSealed: Buffer | null;
}

const BASE_COLUMNS = [
  'url_sealed', 'url_display', 'token_sealed', 'name', 'description', ...EVENT_FLAGS, 'enable_ssl_verification',
  'push_events_branch_filter', 'branch_filter_strategy', 'custom_webhook_template', 'url_variable_keys', 'url_variables_sealed',
  'custom_header_keys', 'custom_headers_sealed',
] as const;

const SELECT = `id::int AS id, project_id::int AS project_id, ${BASE_COLUMNS.join(', ')}, alert_status, disabled_until,
  health_version::int AS health_version, created_at, updated_at`;

function values(r: HookRecord): unknown[] {
  return [
    r.urlSealed, r.urlDisplay, r.tokenSealed, r.name, r.description, ...EVENT_FLAGS.map((f) => r.events[f]), r.enableSslVerification,
    r.pushEventsBranchFilter, r.branchFilterStrategy, r.customWebhookTemplate, r.urlVariableKeys, r.urlVariablesSealed,
    r.customHeaderKeys, r.customHeadersSealed,
  ];
}

/** The hooks of a project, oldest first (GitLab pages `project.hooks` by id). */
export async function listHooks(db: Queryable, projectId: number, limit: number, offset: number): Promise<{ rows: HookRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<HookRow>(`SELECT ${SELECT} FROM hooks WHERE project_id = $1 ORDER BY id LIMIT $2 OFFSET $3`, [projectId, limit, offset]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM hooks WHERE project_id = $1', [projectId]),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** A hook of a project (undefined: unknown, or another project's); `forUpdate` locks the row. */
export async function findHook(db: Queryable, projectId: number, hookId: number, forUpdate = false): Promise<HookRow | undefined> {
  const { rows } = await db.query<HookRow>(
    `SELECT ${SELECT} FROM hooks WHERE id = $1 AND project_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [hookId, projectId],
  );
  return rows[0];
}

/** How many hooks a project has. */
export async function countProjectHooks(db: Queryable, projectId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hooks WHERE project_id = $1', [projectId]);
  return rows[0]!.n;
}

/**
 * Serialises the creates of one project's hooks until the transaction ends, so that the count a create checks against
 * the limit is still true when it inserts (two creates at once cannot both take the last place).
 */
export async function lockProjectHooks(db: PoolClient, projectId: number): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '.project_hooks.' || $1::text, 0))", [projectId]);
}

export async function insertHook(db: PoolClient, projectId: number, r: HookRecord): Promise<HookRow> {
  const cols = ['project_id', ...BASE_COLUMNS];
  const { rows } = await db.query<HookRow>(
    `INSERT INTO hooks (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${SELECT}`,
    [projectId, ...values(r)],
  );
  return rows[0]!;
}

/** Writes an edit; an edited hook is executable again (GitLab re-enables an auto-disabled hook when it is saved). */
export async function updateHook(db: PoolClient, hookId: number, r: HookRecord): Promise<HookRow> {
  const sets = BASE_COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ');
  const { rows } = await db.query<HookRow>(
    `UPDATE hooks SET ${sets}, alert_status = 'executable', disabled_until = NULL, updated_at = now() WHERE id = $1 RETURNING ${SELECT}`,
    [hookId, ...values(r)],
  );
  return rows[0]!;
}

export async function deleteHook(db: PoolClient, projectId: number, hookId: number): Promise<HookRow | undefined> {
  const { rows } = await db.query<HookRow>(`DELETE FROM hooks WHERE id = $1 AND project_id = $2 RETURNING ${SELECT}`, [hookId, projectId]);
  return rows[0];
}

/** Every hook of a project goes (the project was deleted); the deleted ids. */
export async function deleteProjectHooks(db: PoolClient, projectId: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>('DELETE FROM hooks WHERE project_id = $1 RETURNING id::int AS id', [projectId]);
  return rows.map((r) => r.id);
}

/** The hooks of a project with an event flag on, with their branch filters. `flag` must be one of EVENT_FLAGS. */
export async function hooksWithFlag(db: Queryable, projectId: number, flag: EventFlag): Promise<{ id: number; strategy: string; filter: string | null }[]> {
  if (!(EVENT_FLAGS as readonly string[]).includes(flag)) throw new Error(`unknown event flag ${flag}`);
  const { rows } = await db.query<{ id: number; strategy: string; filter: string | null }>(
    `SELECT id::int AS id, branch_filter_strategy AS strategy, push_events_branch_filter AS filter
       FROM hooks WHERE project_id = $1 AND ${flag} IS TRUE ORDER BY id`,
    [projectId],
  );
  return rows;
}

export async function hooksByIds(db: Queryable, ids: number[]): Promise<HookRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<HookRow>(`SELECT ${SELECT} FROM hooks WHERE id = ANY($1::bigint[]) ORDER BY id`, [ids]);
  return rows;
}

/** Applies the dispatcher's health report when it is newer than the one stored; false when stale or unknown. */
export async function applyHealth(db: PoolClient, hookId: number, h: { alertStatus: string; disabledUntil: Date | null; version: number }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE hooks SET alert_status = $2, disabled_until = $3, health_version = $4
      WHERE id = $1 AND health_version < $4`,
    [hookId, h.alertStatus, h.disabledUntil, h.version],
  );
  return (rowCount ?? 0) > 0;
}
