import type { DomainError } from '@glp/service-kit';
import { buildNewProject, normalizeTopics } from './new-project';
import { effectiveSettings } from './project-settings';
import { canReadProject, effectiveAccess, type ProjectAccessFacts } from './visibility';
import { parseSearch } from './list-filter';

const fieldsOf = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as DomainError).fields;
  }
};

describe('new project', () => {
  it('defaults visibility to private and keeps only sent settings', () => {
    const p = buildNewProject({ name: 'demo', topics: [], settings: { mergeMethod: 'ff' } });
    expect(p).toMatchObject({ name: 'demo', path: 'demo', visibility: 'private', description: null, settings: { mergeMethod: 'ff' } });
    expect(Object.keys(p.settings)).toEqual(['mergeMethod']);
  });

  it('collects every field error at once', () => {
    expect(fieldsOf(() => buildNewProject({ name: '-bad', path: 'tree', description: 'x'.repeat(2001), topics: [], settings: { mergeMethod: 'squash' } }))).toEqual({
      name: [expect.stringContaining('It must start with a letter')],
      path: ['tree is a reserved name'],
      description: ['is too long (maximum is 2000 characters)'],
      merge_method: ['is not included in the list'],
    });
  });

  it('refuses merge requests more visible than the repository', () => {
    expect(fieldsOf(() => buildNewProject({ name: 'x', topics: [], settings: { repositoryAccessLevel: 'private', mergeRequestsAccessLevel: 'enabled' } }))).toEqual({
      'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
    });
  });

  it('normalizes topics: split, trimmed, de-duplicated case-insensitively', () => {
    expect(normalizeTopics(['go, Rust', ' go', '', 'rust ', 'k8s'])).toEqual(['go', 'Rust', 'k8s']);
  });

  it('fills settings defaults that depend on visibility', () => {
    expect(effectiveSettings({}, 'public').pagesAccessLevel).toBe('enabled');
    expect(effectiveSettings({}, 'private')).toMatchObject({ pagesAccessLevel: 'private', issuesAccessLevel: 'enabled', buildTimeout: 3600 });
    expect(effectiveSettings({ buildTimeout: 700 }, 'private').buildTimeout).toBe(700);
  });
});

describe('visibility', () => {
  const user = { kind: 'user' as const, id: 7, username: 'u', admin: false, scopes: ['api'] };
  const anon = { kind: 'anonymous' as const, id: 0, username: '', admin: false, scopes: [] };
  const facts = (f: Partial<ProjectAccessFacts>): ProjectAccessFacts => ({ visibility: 'private', memberAccess: 0, namespaceOwnerId: 1, groupAccess: 0, shareAccess: 0, pendingDelete: false, ...f });

  it('public to all, internal to signed-in users, private to members and admins', () => {
    expect(canReadProject(anon, facts({ visibility: 'public' }))).toBe(true);
    expect(canReadProject(anon, facts({ visibility: 'internal' }))).toBe(false);
    expect(canReadProject(user, facts({ visibility: 'internal' }))).toBe(true);
    expect(canReadProject({ ...user, external: true }, facts({ visibility: 'internal' }))).toBe(false);
    expect(canReadProject({ ...user, external: true }, facts({ visibility: 'internal', memberAccess: 10 }))).toBe(true);
    expect(canReadProject({ ...user, external: true }, facts({ visibility: 'public' }))).toBe(true);
    expect(canReadProject(user, facts({}))).toBe(false);
    expect(canReadProject(user, facts({ memberAccess: 10 }))).toBe(true);
    expect(canReadProject(user, facts({ namespaceOwnerId: 7 }))).toBe(true);
    expect(canReadProject(user, facts({ namespaceOwnerId: null, groupAccess: 10 }))).toBe(true);
    expect(canReadProject({ ...user, admin: true }, facts({}))).toBe(true);
    expect(canReadProject({ ...user, admin: true }, facts({ pendingDelete: true }))).toBe(false);
  });

  it('the personal namespace owner has owner access', () => {
    expect(effectiveAccess(user, facts({ namespaceOwnerId: 7 }))).toBe(50);
    expect(effectiveAccess(user, facts({ memberAccess: 30 }))).toBe(30);
    expect(effectiveAccess(user, facts({ memberAccess: 20, groupAccess: 40 }))).toBe(40);
    expect(effectiveAccess(user, facts({ memberAccess: 40, groupAccess: 20 }))).toBe(40);
    expect(effectiveAccess(anon, facts({ memberAccess: 30 }))).toBe(0);
  });
});

describe('search', () => {
  it('matches terms of 3+ characters as substrings, otherwise exactly', () => {
    expect(parseSearch('  ')).toBeUndefined();
    expect(parseSearch('go')).toEqual({ kind: 'exact', value: 'go' });
    expect(parseSearch('gitlab "my proj" a')).toEqual({ kind: 'terms', patterns: ['%gitlab%', '%my proj%'] });
    expect(parseSearch('50%_off')).toEqual({ kind: 'terms', patterns: ['%50\\%\\_off%'] });
  });
});
