import { SchemaRenamer } from './schema-rename';

const rename = (lines: string[], map: Record<string, string>) => {
  const r = new SchemaRenamer(new Map(Object.entries(map)));
  return lines.map((l) => r.line(l));
};

describe('SchemaRenamer', () => {
  it('renames schema-qualified names and schema statements, not tables that share the name', () => {
    expect(rename([
      'CREATE SCHEMA hooks;',
      'SET search_path = hooks, pg_catalog;',
      'CREATE TABLE hooks.hooks (',
      "    id bigint DEFAULT nextval('hooks.hooks_id_seq'::regclass) NOT NULL",
      'ALTER TABLE ONLY hooks.hooks ADD CONSTRAINT hooks_pkey PRIMARY KEY (id);',
      'CREATE INDEX x ON myhooks.t USING btree (a);',
    ], { hooks: 's2_hooks' })).toEqual([
      'CREATE SCHEMA s2_hooks;',
      'SET search_path = s2_hooks, pg_catalog;',
      'CREATE TABLE s2_hooks.hooks (',
      "    id bigint DEFAULT nextval('s2_hooks.hooks_id_seq'::regclass) NOT NULL",
      'ALTER TABLE ONLY s2_hooks.hooks ADD CONSTRAINT hooks_pkey PRIMARY KEY (id);',
      'CREATE INDEX x ON myhooks.t USING btree (a);',
    ]);
  });

  it('leaves the rows of a COPY block as they are', () => {
    expect(rename([
      'COPY a_projects.projects (id, description) FROM stdin;',
      '1\tsee a_projects.projects',
      '\\.',
      'SELECT a_projects.f();',
    ], { a_projects: 'b_projects' })).toEqual([
      'COPY b_projects.projects (id, description) FROM stdin;',
      '1\tsee a_projects.projects',
      '\\.',
      'SELECT b_projects.f();',
    ]);
  });

  it('renames in one pass (a → b and b → c do not chain) and longest names first', () => {
    expect(rename(['SELECT a.x, b.y, a_b.z;'], { a: 'b', b: 'c', a_b: 'q' })).toEqual(['SELECT b.x, c.y, q.z;']);
  });

  it('changes nothing when every schema keeps its name', () => {
    expect(rename(['CREATE TABLE p.t (id int);'], { p: 'p' })).toEqual(['CREATE TABLE p.t (id int);']);
  });
});
