import type { Pool, PoolClient } from '@glp/db';
import { FLAG_FIELDS, REGEX_FIELDS, type PushRuleSettings } from '../domain/push-rule-attributes';

type Queryable = Pool | PoolClient;

/** A `push_rules` row. */
export interface PushRuleRow extends PushRuleSettings {
  id: number;
  project_id: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [...REGEX_FIELDS, ...FLAG_FIELDS, 'max_file_size'] as const;
const SELECT = `id::int AS id, project_id::int AS project_id, ${COLUMNS.join(', ')}, created_at, updated_at`;

const values = (s: PushRuleSettings) => COLUMNS.map((c) => s[c]);

/** The project's rule (undefined: none); `forUpdate` locks it. */
export async function findPushRule(db: Queryable, projectId: number, forUpdate = false): Promise<PushRuleRow | undefined> {
  const { rows } = await db.query<PushRuleRow>(`SELECT ${SELECT} FROM push_rules WHERE project_id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [projectId]);
  return rows[0];
}

/** Inserts the project's rule; undefined when the project already has one (the unique project_id). */
export async function insertPushRule(db: Queryable, projectId: number, s: PushRuleSettings): Promise<PushRuleRow | undefined> {
  const params = COLUMNS.map((_c, i) => `$${i + 2}`).join(', ');
  const { rows } = await db.query<PushRuleRow>(
    `INSERT INTO push_rules (project_id, ${COLUMNS.join(', ')}) VALUES ($1, ${params})
     ON CONFLICT (project_id) DO NOTHING RETURNING ${SELECT}`,
    [projectId, ...values(s)],
  );
  return rows[0];
}

/** Writes the project's rule; undefined when it has none. */
export async function updatePushRule(db: Queryable, projectId: number, s: PushRuleSettings): Promise<PushRuleRow | undefined> {
  const sets = COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ');
  const { rows } = await db.query<PushRuleRow>(
    `UPDATE push_rules SET ${sets}, updated_at = now() WHERE project_id = $1 RETURNING ${SELECT}`,
    [projectId, ...values(s)],
  );
  return rows[0];
}

/** Deletes the project's rule; false when it had none. */
export async function deletePushRule(db: Queryable, projectId: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM push_rules WHERE project_id = $1', [projectId]);
  return (rowCount ?? 0) > 0;
}
