import { bundlePath, FORMAT_VERSION, isSafeRelativePath, manifestProblem, schemaRenames, unknownMigrations, type Manifest } from './manifest';
import { DEFAULT_SCHEMAS, parseSchemaMap, SERVICES } from './services';

const schemas = Object.fromEntries(SERVICES.map((s) => [s, { schema: DEFAULT_SCHEMAS[s], migrations: { pgmigrations: ['0001_init'] } }])) as Manifest['schemas'];
const manifest = { formatVersion: FORMAT_VERSION, schemas, files: [{ path: 'database.dump', size: 1, sha256: 'x' }], repositories: [], storedFiles: [] };

describe('manifest', () => {
  it('accepts a manifest of this format, refuses other formats, missing schemas and unsafe paths', () => {
    expect(manifestProblem(manifest)).toBeUndefined();
    expect(manifestProblem({ ...manifest, formatVersion: 2 })).toMatch(/backup format 2 is not supported/);
    expect(manifestProblem({ ...manifest, schemas: { identity: schemas.identity } })).toMatch(/every service schema/);
    expect(manifestProblem({ ...manifest, files: [{ path: '../etc/passwd', size: 1, sha256: 'x' }] })).toMatch(/unsafe path/);
    expect(manifestProblem('nope')).toMatch(/not a JSON object/);
  });

  it('knows safe relative paths', () => {
    for (const ok of ['database.dump', 'repositories/@hashed/ab/cd/x.bundle', 'files/1/FileUploader/s/a b.txt']) expect(isSafeRelativePath(ok)).toBe(true);
    for (const bad of ['', '/abs', 'a/../b', 'a//b', './a', 'a\\b', 'a\0b']) expect(isSafeRelativePath(bad)).toBe(false);
  });

  it('lists the migrations of the backup this code does not know (a newer release took it)', () => {
    const code = Object.fromEntries(SERVICES.map((s) => [s, { pgmigrations: ['0001_init', '0002_more'] }])) as Parameters<typeof unknownMigrations>[1];
    expect(unknownMigrations(manifest, code)).toEqual([]);
    const newer = { schemas: { ...schemas, hooks: { schema: 'hooks', migrations: { pgmigrations: ['0001_init', '0003_future'] } } } };
    expect(unknownMigrations(newer, code)).toEqual(['hooks pgmigrations 0003_future']);
  });

  it('maps source schemas to the target stack’s, and bundles to their hashed path', () => {
    const target = parseSchemaMap('projects=b_projects');
    expect(schemaRenames(manifest, target).get('projects')).toBe('b_projects');
    expect(schemaRenames(manifest, target).get('identity')).toBe('identity');
    expect(bundlePath('@hashed/ab/cd/abcd.git')).toBe('repositories/@hashed/ab/cd/abcd.bundle');
  });
});

describe('parseSchemaMap', () => {
  it('overrides the defaults and refuses unknown services, bad identifiers and shared schemas', () => {
    expect(parseSchemaMap('')).toEqual(DEFAULT_SCHEMAS);
    expect(parseSchemaMap(' hooks = h2 ').hooks).toBe('h2');
    expect(() => parseSchemaMap('gateway=g')).toThrow(/unknown service "gateway"/);
    expect(() => parseSchemaMap('hooks=Bad-Name')).toThrow(/not a lower-case SQL identifier/);
    expect(() => parseSchemaMap('hooks=projects')).toThrow(/cannot share a schema/);
  });
});
