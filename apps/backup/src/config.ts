import path from 'node:path';
import { z } from 'zod';
import { commonServiceEnv, env, loadConfig } from '@glp/service-kit';
import { parseSchemaMap, type SchemaMap } from './domain/services';

export const backupEnv = z.object({
  ...commonServiceEnv,
  /** The database every service schema lives in (they share one; one pg_dump takes them all in one snapshot). */
  DATABASE_URL: env.url(),
  /** Each service's schema, `service=schema,…`; unset services keep their DB_SCHEMA default. */
  BACKUP_SCHEMAS: z.string().default(''),
  /** repo-admin's gRPC address (the repositories and files go through it: it owns the disk). */
  REPO_ADMIN_GRPC_ADDR: env.str('127.0.0.1:50054'),
  /**
   * The restored stack's topic prefix (its services' KAFKA_TOPIC_PREFIX): retained outbox rows are republished to its
   * topics, whatever prefix the backed-up stack had.
   */
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only').default(''),
  /** Where `backup` writes backups (one directory each). */
  BACKUP_DIR: env.str(path.resolve('.data/backups')),
  /** Repositories and files transferred at once. */
  BACKUP_CONCURRENCY: env.int(4, 1, 64),
  /** The pg_dump / pg_restore / psql binaries (PostgreSQL's client tools, the server's major version or newer). */
  PG_BIN_DIR: z.string().default(''),
});

export type BackupConfig = z.infer<typeof backupEnv> & { schemas: SchemaMap };

export function loadBackupConfig(): BackupConfig {
  const c = loadConfig(backupEnv);
  return { ...c, schemas: parseSchemaMap(c.BACKUP_SCHEMAS) };
}
