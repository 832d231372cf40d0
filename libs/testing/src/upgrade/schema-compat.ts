import type { ClientBase } from 'pg';

/** What the previous release's code may rely on in a schema: its tables and views, and their columns. */
export interface SchemaSnapshot {
  /** `table` → its columns; views included (their columns are what a SELECT reads). */
  tables: Map<string, Map<string, ColumnShape>>;
}

export interface ColumnShape {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** The tables, views and columns of `schema`, as information_schema shows them. */
export async function snapshotSchema(client: ClientBase, schema: string): Promise<SchemaSnapshot> {
  const { rows } = await client.query<{ table_name: string; column_name: string; type: string; is_nullable: string; column_default: string | null; is_identity: string }>(
    `SELECT c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) AS type, c.is_nullable, c.column_default, c.is_identity
       FROM information_schema.columns c
       JOIN pg_catalog.pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
      WHERE c.table_schema = $1`,
    [schema],
  );
  const tables = new Map<string, Map<string, ColumnShape>>();
  for (const r of rows) {
    if (!tables.has(r.table_name)) tables.set(r.table_name, new Map());
    tables.get(r.table_name)!.set(r.column_name, {
      type: r.type, nullable: r.is_nullable === 'YES', hasDefault: r.column_default !== null || r.is_identity === 'YES',
    });
  }
  return { tables };
}

/**
 * What in `after` (the previous release's schema once this release's regular migrations ran) breaks code written for
 * `before` (the previous release's schema), which keeps serving during a rolling upgrade: a table or column gone or
 * renamed, a column's type changed, a column made NOT NULL, a NOT NULL column without a default added to an existing
 * table (the previous release's INSERTs do not name it). Such steps belong in a post-deployment migration.
 */
export function schemaBreaks(before: SchemaSnapshot, after: SchemaSnapshot): string[] {
  const breaks: string[] = [];
  for (const [table, columns] of before.tables) {
    const now = after.tables.get(table);
    if (!now) {
      breaks.push(`table ${table} is dropped or renamed`);
      continue;
    }
    for (const [column, was] of columns) {
      const is = now.get(column);
      if (!is) breaks.push(`column ${table}.${column} is dropped or renamed`);
      else if (is.type !== was.type) breaks.push(`column ${table}.${column} changes type (${was.type} → ${is.type})`);
      else if (was.nullable && !is.nullable) breaks.push(`column ${table}.${column} becomes NOT NULL`);
    }
    for (const [column, is] of now) {
      if (!columns.has(column) && !is.nullable && !is.hasDefault) breaks.push(`column ${table}.${column} is added NOT NULL without a default`);
    }
  }
  return breaks;
}
