import path from 'node:path';
import { runServiceMigrations, type MigrationPhase } from '@glp/db';
import { eventsMigrationSet } from '@glp/events';

/** The push_rules schema: its table, then the outbox / processed-events tables of libs/events. Phase `all` (the default) adds the post-deployment ones. */
export function migratePushRules(url: string, schema: string, opts: { phase?: MigrationPhase; log?: (m: string) => void } = {}): Promise<string[]> {
  return runServiceMigrations({ url, schema, dir: path.resolve(__dirname, '../migrations'), shared: [eventsMigrationSet()], ...opts });
}
