import { Client } from 'pg';
import { MIGRATION_TABLES, SERVICES, type MigrationTable, type SchemaMap, type ServiceName } from '../domain/services';

/**
 * One read-only REPEATABLE READ transaction whose snapshot is exported (`pg_export_snapshot`): pg_dump runs in it
 * (`--snapshot`), and the lists a backup copies (repositories, stored files, applied migrations) are read in it too, so
 * the database dump and what the backup copies from the disk agree on one instant. Open until `close`.
 */
export class DatabaseSnapshot {
  private constructor(private readonly client: Client, readonly id: string) {}

  static async open(databaseUrl: string): Promise<DatabaseSnapshot> {
    const client = new Client({ connectionString: databaseUrl, application_name: 'backup' });
    await client.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
      return new DatabaseSnapshot(client, rows[0]!.id);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** The migrations applied to each schema, by migration table (a table the schema lacks is left out). */
  async appliedMigrations(schemas: SchemaMap): Promise<Record<ServiceName, Partial<Record<MigrationTable, string[]>>>> {
    const out = {} as Record<ServiceName, Partial<Record<MigrationTable, string[]>>>;
    for (const service of SERVICES) {
      out[service] = {};
      for (const table of MIGRATION_TABLES) {
        const { rows: exists } = await this.client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [schemas[service], table]);
        if (!exists.length) continue;
        const { rows } = await this.client.query<{ name: string }>(`SELECT name FROM ${schemas[service]}.${table} ORDER BY run_on, id`);
        out[service][table] = rows.map((r) => r.name);
      }
    }
    return out;
  }

  /** repo-admin's repository records (each project's repository on disk), in project order. */
  async repositories(repoAdminSchema: string): Promise<{ projectId: number; diskPath: string; defaultBranch: string }[]> {
    const { rows } = await this.client.query<{ project_id: string; disk_path: string; default_branch: string | null }>(
      `SELECT project_id, disk_path, default_branch FROM ${repoAdminSchema}.repositories ORDER BY project_id`,
    );
    return rows.map((r) => ({ projectId: Number(r.project_id), diskPath: r.disk_path, defaultBranch: r.default_branch ?? '' }));
  }

  /** repo-admin's upload and avatar rows (each names a file on disk). */
  async storedFiles(repoAdminSchema: string): Promise<{ projectId: number; uploader: string; secret: string; fileName: string }[]> {
    const { rows } = await this.client.query<{ project_id: string; uploader: string; secret: string; filename: string }>(
      `SELECT project_id, uploader, secret, filename FROM ${repoAdminSchema}.uploads ORDER BY id`,
    );
    return rows.map((r) => ({ projectId: Number(r.project_id), uploader: r.uploader, secret: r.secret, fileName: r.filename }));
  }

  async close(): Promise<void> {
    await this.client.query('COMMIT').catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}
