import path from 'node:path';
import { runMigrations } from '@glp/db';
import { eventsMigrationSet } from '@glp/events';

/** The push_rules schema: its table, then the outbox / processed-events tables of libs/events. */
export function migratePushRules(url: string, schema: string, log?: (m: string) => void): Promise<string[]> {
  return runMigrations({
    url,
    schema,
    sets: [{ dir: path.resolve(__dirname, '../migrations'), table: 'pgmigrations' }, eventsMigrationSet()],
    log,
  });
}
