import path from 'node:path';
import { runMigrations } from '@glp/db';
import { eventsMigrationSet } from '@glp/events';

/** The hooks schema: its table, then the outbox tables of libs/events. */
export function migrateHooks(url: string, schema: string, log?: (m: string) => void): Promise<string[]> {
  return runMigrations({
    url,
    schema,
    sets: [{ dir: path.resolve(__dirname, '../migrations'), table: 'pgmigrations' }, eventsMigrationSet()],
    log,
  });
}
