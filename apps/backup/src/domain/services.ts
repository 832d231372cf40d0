/** The services whose schemas a backup holds, and where their migrations come from. No I/O here. */

export const SERVICES = ['identity', 'projects', 'access-requests', 'repo-admin', 'hooks', 'webhook-dispatcher', 'push-rules'] as const;
export type ServiceName = (typeof SERVICES)[number];
export type SchemaMap = Record<ServiceName, string>;

/** Each service's DB_SCHEMA default. */
export const DEFAULT_SCHEMAS: SchemaMap = {
  identity: 'identity', projects: 'projects', 'access-requests': 'access_requests', 'repo-admin': 'repo_admin', hooks: 'hooks',
  'webhook-dispatcher': 'webhook_dispatcher', 'push-rules': 'push_rules',
};

/**
 * The migration sets of a schema (libs/db runServiceMigrations): the service's regular ones, libs/events' outbox set
 * (every service but the gateway), and the post-deployment ones.
 */
export const MIGRATION_TABLES = ['pgmigrations', 'events_pgmigrations', 'pgmigrations_post'] as const;
export type MigrationTable = (typeof MIGRATION_TABLES)[number];

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** `service=schema,…` over the defaults; throws on an unknown service, a bad identifier, or two services on one schema. */
export function parseSchemaMap(spec: string): SchemaMap {
  const map: SchemaMap = { ...DEFAULT_SCHEMAS };
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [service, schema] = item.split('=').map((s) => s.trim());
    if (!SERVICES.includes(service as ServiceName)) throw new Error(`BACKUP_SCHEMAS: unknown service "${service}" (one of ${SERVICES.join(', ')})`);
    if (!schema || !IDENTIFIER.test(schema)) throw new Error(`BACKUP_SCHEMAS: "${schema ?? ''}" is not a lower-case SQL identifier`);
    map[service as ServiceName] = schema;
  }
  const names = Object.values(map);
  if (new Set(names).size !== names.length) throw new Error('BACKUP_SCHEMAS: two services cannot share a schema');
  return map;
}
