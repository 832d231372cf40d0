import { schemaBreaks, type ColumnShape, type SchemaSnapshot } from './schema-compat';

const col = (type: string, nullable = true, hasDefault = false): ColumnShape => ({ type, nullable, hasDefault });
const snap = (tables: Record<string, Record<string, ColumnShape>>): SchemaSnapshot => ({
  tables: new Map(Object.entries(tables).map(([t, cs]) => [t, new Map(Object.entries(cs))])),
});
const before = snap({ projects: { id: col('bigint', false, true), name: col('text', false), topic: col('text') } });

describe('schemaBreaks: what a regular migration may not do to the previous release', () => {
  it('allows adding tables, nullable columns, columns with a default, and relaxing NOT NULL', () => {
    const after = snap({
      projects: { id: col('bigint', false, true), name: col('text'), topic: col('text'), stars: col('integer', false, true), note: col('text') },
      project_events: { id: col('bigint', false, true) },
    });
    expect(schemaBreaks(before, after)).toEqual([]);
  });

  it('refuses dropping or renaming a table or a column, changing a type, tightening NULL, and a new NOT NULL column without a default', () => {
    expect(schemaBreaks(before, snap({}))).toEqual(['table projects is dropped or renamed']);
    const after = snap({ projects: { id: col('integer', false, true), title: col('text', false), topic: col('text', false), owner: col('bigint', false) } });
    expect(schemaBreaks(before, after)).toEqual([
      'column projects.id changes type (bigint → integer)',
      'column projects.name is dropped or renamed',
      'column projects.topic becomes NOT NULL',
      'column projects.title is added NOT NULL without a default',
      'column projects.owner is added NOT NULL without a default',
    ]);
  });
});
