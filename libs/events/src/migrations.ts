import path from 'node:path';
import type { MigrationSet } from '@glp/db';

export const EVENTS_MIGRATIONS_TABLE = 'events_pgmigrations';

/**
 * The outbox / processed_events tables, as a migration set a service runs into its own
 * schema next to its own migrations: runMigrations({ url, schema, sets: [own, eventsMigrationSet()] }).
 */
export function eventsMigrationSet(): MigrationSet {
  // src/ (jest) and dist/ (built) are both one level below libs/events.
  return { dir: path.resolve(__dirname, '../migrations'), table: EVENTS_MIGRATIONS_TABLE };
}
