import {
  anonymousMatchesNothing, featureAvailability, parseSearch, programmingLanguageMatchesNothing, repositoryStorageFilter, resolveOrdering,
} from './list-filter';

describe('listing rules', () => {
  it('gives anonymous callers nothing for membership, owned or min_access_level (ProjectsFinder#collection_without_user)', () => {
    const none = { membership: false, owned: false };
    expect(anonymousMatchesNothing(false, none)).toBe(false);
    expect(anonymousMatchesNothing(false, { ...none, membership: true })).toBe(true);
    expect(anonymousMatchesNothing(false, { ...none, owned: true })).toBe(true);
    expect(anonymousMatchesNothing(false, { ...none, minAccessLevel: 30 })).toBe(true);
    expect(anonymousMatchesNothing(true, { membership: true, owned: true, minAccessLevel: 30 })).toBe(false);
  });

  it('orders by similarity only with a search and a signed-in caller, then only among their projects', () => {
    expect(resolveOrdering('similarity', 'proj', true)).toEqual({ orderBy: 'similarity', membership: true });
    expect(resolveOrdering('similarity', '  ', true)).toEqual({ orderBy: 'created_at', membership: false });
    expect(resolveOrdering('similarity', 'proj', false)).toEqual({ orderBy: 'created_at', membership: false });
    expect(resolveOrdering('name', 'proj', true)).toEqual({ orderBy: 'name', membership: false });
    expect(resolveOrdering('storage_size', '', true)).toEqual({ orderBy: 'created_at', membership: false });
  });

  it('orders by the statistics sizes for administrators only; anyone else silently gets the default', () => {
    for (const size of ['storage_size', 'repository_size', 'wiki_size', 'packages_size']) {
      expect(resolveOrdering(size, '', true, true)).toEqual({ orderBy: size, membership: false });
      expect(resolveOrdering(size, '', true, false)).toEqual({ orderBy: 'created_at', membership: false });
      expect(resolveOrdering(size, 'proj', false, false)).toEqual({ orderBy: 'created_at', membership: false });
    }
    expect(resolveOrdering('commit_count', '', true, true)).toEqual({ orderBy: 'created_at', membership: false });
    expect(resolveOrdering('similarity', 'proj', true, true)).toEqual({ orderBy: 'similarity', membership: true });
  });

  it('counts enabled features as available to anyone, private ones to members from the feature minimum level', () => {
    expect(featureAvailability({ admin: false, signedIn: false }, 10)).toEqual({ always: ['enabled', 'public'], privateForLevel: null });
    expect(featureAvailability({ admin: false, signedIn: true }, 20)).toEqual({ always: ['enabled', 'public'], privateForLevel: 20 });
    expect(featureAvailability({ admin: true, signedIn: true }, 20)).toEqual({ always: ['enabled', 'public', 'private'], privateForLevel: null });
  });

  it('matches nothing for any programming language sent, empty string included (GitLab: `if lang`)', () => {
    expect(programmingLanguageMatchesNothing(undefined)).toBe(false);
    expect(programmingLanguageMatchesNothing('')).toBe(true);
    expect(programmingLanguageMatchesNothing('Ruby')).toBe(true);
  });

  it('keeps repository_storage for administrators only, blank ignored', () => {
    expect(repositoryStorageFilter('default', true)).toBe('default');
    expect(repositoryStorageFilter('default', false)).toBeUndefined();
    expect(repositoryStorageFilter('', true)).toBeUndefined();
  });

  it('parses search terms as before (3+ characters: substring terms; else exact)', () => {
    expect(parseSearch('ab')).toEqual({ kind: 'exact', value: 'ab' });
    expect(parseSearch('grp/pro "a b c" x')).toEqual({ kind: 'terms', patterns: ['%grp/pro%', '%a b c%'] });
    expect(parseSearch('50%_off')).toEqual({ kind: 'terms', patterns: ['%50\\%\\_off%'] });
  });
});
