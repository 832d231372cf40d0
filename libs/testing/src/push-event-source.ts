import { randomBytes } from 'node:crypto';
import { createPool, type Pool } from '@glp/db';
import { appendEvent, EventTypes, topicFor } from '@glp/events';
import type { RunningStack } from './stack';

/**
 * Writes Push events into repo-admin's outbox, in repo-admin's own schema, exactly as a `git push` does (the relay then
 * publishes them): a test or a benchmark makes thousands of push events without running thousands of git processes.
 * `emit` answers each event's id and the time its transaction committed.
 */
export function pushEventSource(stack: RunningStack, databaseUrl: string) {
  const pool: Pool = createPool({ url: databaseUrl, schema: stack.schemas.repoAdmin, max: 4, applicationName: 'push-event-source' });
  const topic = topicFor('repo-admin', stack.topicPrefix);
  const sha = () => randomBytes(20).toString('hex');
  return {
    /** `count` Push events of `projectId`'s `branch`, one transaction each; resolves with (event id, commit time). */
    async emit(projectId: number, count = 1, branch = 'main'): Promise<{ eventId: string; committedAt: number }[]> {
      const out: { eventId: string; committedAt: number }[] = [];
      for (let i = 0; i < count; i++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const after = sha();
          const envelope = await appendEvent(client, {
            topic, aggregateType: 'repository', aggregateKey: `project:${projectId}`, payloadType: EventTypes.Push, actor: { id: 1, username: 'root' },
            payload: {
              projectId, ref: `refs/heads/${branch}`, before: sha(), after, checkoutSha: after,
              pusher: { userId: 1, username: 'root', name: 'Administrator', email: 'admin@example.com' },
              commits: [{ id: after, message: `bench ${i}\n`, title: `bench ${i}`, timestamp: new Date(), authorName: 'Bench', authorEmail: 'bench@example.com', added: ['a.txt'], modified: [], removed: [] }],
              totalCommitsCount: 1, pushedAt: new Date(), refsInPush: 1,
            },
          });
          await client.query('COMMIT');
          out.push({ eventId: envelope.eventId, committedAt: performance.timeOrigin + performance.now() });
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          client.release();
        }
      }
      return out;
    },
    close: () => pool.end(),
  };
}
