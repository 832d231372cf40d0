import type { PoolClient, Pool } from 'pg';

type Db = Pool | PoolClient;

export interface WebhookEventRow {
  eventId: string;
  projectId: number;
  trigger: string;
  payload: unknown;
  occurredAt: Date;
}

/** Stores an event's payload once (a redelivered event keeps the first). */
export async function insertWebhookEvent(db: Db, e: WebhookEventRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_events (event_id, project_id, trigger, payload, occurred_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (event_id) DO NOTHING`,
    [e.eventId, e.projectId, e.trigger, JSON.stringify(e.payload), e.occurredAt],
  );
}

export async function getWebhookEvent(db: Db, eventId: string): Promise<WebhookEventRow | undefined> {
  const { rows } = await db.query(
    'SELECT event_id, project_id, trigger, payload, occurred_at FROM webhook_events WHERE event_id = $1',
    [eventId],
  );
  const r = rows[0];
  return r ? { eventId: r.event_id, projectId: Number(r.project_id), trigger: r.trigger, payload: r.payload, occurredAt: r.occurred_at } : undefined;
}

/** Events older than the retention with no open delivery and no log left (their finished deliveries go with them). */
export async function deleteOldEvents(db: Db, olderThanDays: number, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_events e WHERE e.event_id IN (
       SELECT x.event_id FROM webhook_events x
       WHERE x.created_at < now() - make_interval(days => $1)
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = x.event_id AND d.status IN ('pending', 'delivering'))
         AND NOT EXISTS (SELECT 1 FROM web_hook_logs l WHERE l.event_id = x.event_id)
       LIMIT $2)`,
    [olderThanDays, limit],
  );
  return rowCount ?? 0;
}
