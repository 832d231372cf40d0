import {
  activityOf, anonymousMatchesNothing, countLowerBound, isCalendarDate, countsCallerProjectsAlone, type ListFilter, featureAvailability, parseSearch, plansAlikeForAnyValues, programmingLanguageMatchesNothing,
  repositoryStorageFilter, resolveOrdering,
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

  describe('countLowerBound (the per-visibility counts that can stand in for the capped count)', () => {
    const base: ListFilter = {
      callerId: 7, readScope: 'signed_in', groupAccess: [{ namespaceId: 3, level: 30 }], owned: false, membership: false, topics: [],
      searchNamespaces: false, starredBy: [], issuesAvailable: false, mergeRequestsAvailable: false, none: false, orderBy: 'last_activity_at',
      sort: 'desc', page: 25, perPage: 20, countLimit: 10_000,
    };

    it('is the visibilities every caller of the read scope reads, within the visibility and archived filters', () => {
      expect(countLowerBound({ ...base, readScope: 'all' })).toEqual({ visibilities: ['private', 'internal', 'public'], archived: undefined, exact: true, plusOwnPrivate: false });
      expect(countLowerBound(base)).toEqual({ visibilities: ['internal', 'public'], archived: undefined, exact: false, plusOwnPrivate: true });
      expect(countLowerBound({ ...base, readScope: 'external' })).toEqual({ visibilities: ['public'], archived: undefined, exact: false, plusOwnPrivate: false });
      expect(countLowerBound({ ...base, readScope: 'public', callerId: 0, groupAccess: [] })).toEqual({ visibilities: ['public'], archived: undefined, exact: true, plusOwnPrivate: false });
      expect(countLowerBound({ ...base, readScope: 'all', visibility: 'internal', archived: false })).toEqual({ visibilities: ['internal'], archived: false, exact: true, plusOwnPrivate: false });
      expect(countLowerBound({ ...base, visibility: 'public', archived: true })).toEqual({ visibilities: ['public'], archived: true, exact: true, plusOwnPrivate: false });
    });

    it('is the count itself only where the caller\'s own projects cannot add one', () => {
      // An administrator reads every project; an anonymous caller owns none.
      expect(countLowerBound({ ...base, readScope: 'all', archived: true })?.exact).toBe(true);
      expect(countLowerBound({ ...base, readScope: 'public', callerId: 0, groupAccess: [], archived: false })?.exact).toBe(true);
      // A visibility every caller of the scope reads: the caller's own projects of it are among them already.
      expect(countLowerBound({ ...base, visibility: 'internal' })?.exact).toBe(true);
      expect(countLowerBound({ ...base, readScope: 'external', visibility: 'public' })?.exact).toBe(true);
      // Without one, a signed-in or external user's private (and, external, internal) projects add to the bound.
      expect(countLowerBound({ ...base, archived: false })?.exact).toBe(false);
      expect(countLowerBound({ ...base, readScope: 'external', groupAccess: [] })?.exact).toBe(false);
      // A signed-in user's can add private ones only: the count is the bound plus those. An external user's can add
      // internal ones too: not that.
      expect(countLowerBound({ ...base, archived: false })?.plusOwnPrivate).toBe(true);
      expect(countLowerBound({ ...base, readScope: 'external', groupAccess: [] })?.plusOwnPrivate).toBe(false);
      expect(countLowerBound({ ...base, visibility: 'public' })?.plusOwnPrivate).toBe(false);
    });

    it('is none where the scope does not read the asked visibility whatever the memberships', () => {
      expect(countLowerBound({ ...base, visibility: 'private' })).toBeUndefined();
      expect(countLowerBound({ ...base, readScope: 'external', visibility: 'internal' })).toBeUndefined();
      expect(countLowerBound({ ...base, readScope: 'public', visibility: 'private' })).toBeUndefined();
      expect(countLowerBound({ ...base, readScope: 'all', visibility: 'private' })).toEqual({ visibilities: ['private'], archived: undefined, exact: true, plusOwnPrivate: false });
    });

    it('counts one topic from the per-topic counts, lower-cased as the listing matches it; two topics have no bound', () => {
      expect(countLowerBound({ ...base, topics: ['T7'] })).toEqual({ visibilities: ['internal', 'public'], archived: undefined, topic: 't7', exact: false, plusOwnPrivate: true });
      expect(countLowerBound({ ...base, readScope: 'all', topics: ['ops'], archived: true })).toEqual({ visibilities: ['private', 'internal', 'public'], archived: true, topic: 'ops', exact: true, plusOwnPrivate: false });
      expect(countLowerBound({ ...base, topics: ['a', 'b'] })).toBeUndefined();
      expect(countLowerBound({ ...base, topics: ['a'], owned: true })).toBeUndefined();
    });

    it('is none under any filter that narrows the listing ("" is a repository_storage filter too)', () => {
      const narrowing: Partial<ListFilter>[] = [
        { owned: true }, { membership: true }, { minAccessLevel: 30 }, { namespaceId: 5 }, { forkedFromProjectId: 9 }, { sharedWithGroupId: 4 },
        { idAfter: 10 }, { idBefore: 10 }, { topics: ['a', 'b'] }, { search: { kind: 'exact', value: 'ab' } }, { starredBy: [7] },
        { lastActivityAfter: new Date(0) }, { lastActivityBefore: new Date() }, { issuesAvailable: true }, { mergeRequestsAvailable: true },
        { none: true }, { repositoryStorage: 'default' }, { repositoryStorage: '' }, { customAttributes: [{ key: 'k', value: 'v' }] },
      ];
      for (const over of narrowing) expect([over, countLowerBound({ ...base, readScope: 'all', ...over })]).toEqual([over, undefined]);
    });

    it('counts a listing of the caller\'s projects from their sources only when nothing else filters it', () => {
      const mine = { ...base, membership: true };
      expect(countsCallerProjectsAlone(mine)).toBe(true);
      expect(countsCallerProjectsAlone({ ...mine, readScope: 'all', orderBy: 'name', page: 3, customAttributes: [] })).toBe(true);
      expect(countsCallerProjectsAlone(base)).toBe(false);
      const others: Partial<ListFilter>[] = [
        { visibility: 'private' }, { archived: false }, { owned: true }, { minAccessLevel: 30 }, { topics: ['t'] }, { starredBy: [7] },
        { search: { kind: 'exact', value: 'ab' } }, { namespaceId: 5 }, { none: true }, { repositoryStorage: '' }, { idAfter: 3 },
      ];
      for (const over of others) expect([over, countsCallerProjectsAlone({ ...mine, ...over })]).toEqual([over, false]);
    });

    it('plans alike for any values (generic plans) only the listings of visibility, archived state and ordering that read no membership', () => {
      const admin = { ...base, readScope: 'all' as const, groupAccess: [] };
      const anonymous = { ...base, readScope: 'public' as const, callerId: 0, groupAccess: [] };
      for (const f of [admin, anonymous, { ...admin, visibility: 'private' as const, archived: true, orderBy: 'last_activity_at' as const, page: 25 },
        { ...anonymous, archived: false, orderBy: 'star_count' as const }, { ...base, visibility: 'internal' as const }, { ...base, readScope: 'external' as const, visibility: 'public' as const },
        // Keyset pages: ordered by id, bounded by id, not counted.
        { ...admin, orderBy: 'id' as const, sort: 'asc' as const, idAfter: 90_000, countLimit: 0 }, { ...anonymous, orderBy: 'id' as const, idBefore: 5, countLimit: 0 },
        { ...admin, visibility: 'internal' as const, orderBy: 'created_at' as const, idAfter: 3, idBefore: 90_000, countLimit: 0 }]) {
        expect([f, plansAlikeForAnyValues(f)]).toEqual([f, true]);
      }
      // The caller's memberships in the SQL (a member's own private projects), or a value whose matches are skewed: a
      // namespace, a topic, a search, stars, the caller's level, an id bound that is counted or not the ordering's.
      for (const f of [base, { ...base, archived: false }, { ...base, readScope: 'external' as const }, { ...admin, namespaceId: 5 }, { ...admin, topics: ['t7'] },
        { ...anonymous, search: parseSearch('proj') }, { ...admin, starredBy: [7] }, { ...base, visibility: 'internal' as const, minAccessLevel: 30 },
        { ...admin, idAfter: 90_000 }, { ...admin, orderBy: 'name' as const, idAfter: 90_000, countLimit: 0 }, { ...base, orderBy: 'id' as const, idAfter: 90_000, countLimit: 0 },
        { ...admin, orderBy: 'id' as const, idAfter: 90_000, countLimit: 0, namespaceId: 5 }, { ...admin, membership: true }, { ...admin, customAttributes: [{ key: 'k', value: 'v' }] }]) {
        expect([f, plansAlikeForAnyValues(f)]).toEqual([f, false]);
      }
    });

    it('ignores ordering, paging, an empty custom attribute list and the caller\'s own groups, which cannot remove a project', () => {
      const expected = { visibilities: ['internal', 'public'], archived: undefined, exact: false, plusOwnPrivate: true };
      expect(countLowerBound({ ...base, orderBy: 'name', sort: 'asc', page: 1, perPage: 100, customAttributes: [], groupAccess: [] })).toEqual(expected);
      expect(countLowerBound({ ...base, similarityTo: 'x', searchNamespaces: true, namespaceId: 0, idAfter: 0 })).toEqual(expected);
    });
  });

  describe('active and marked_for_deletion_on (GitLab 18 ProjectsFinder#by_active, #by_marked_for_deletion_on)', () => {
    const base: ListFilter = {
      callerId: 0, readScope: 'all', groupAccess: [], owned: false, membership: false, topics: [], searchNamespaces: false, starredBy: [],
      issuesAvailable: false, mergeRequestsAvailable: false, none: false, orderBy: 'id', sort: 'desc', page: 1, perPage: 20, countLimit: 10_000,
    };

    it('reads active=false as a filter too (only unset filters nothing)', () => {
      expect(activityOf(undefined)).toBeUndefined();
      expect(activityOf(true)).toBe('active');
      expect(activityOf(false)).toBe('inactive');
    });

    it('narrows the listing: the per-visibility counts no longer stand in for its count, nor its plan for any values', () => {
      expect(countLowerBound(base)).toBeDefined();
      for (const f of [{ activity: 'active' as const }, { activity: 'inactive' as const }, { markedForDeletionOn: '2026-01-31' }]) {
        expect(countLowerBound({ ...base, ...f })).toBeUndefined();
        expect(plansAlikeForAnyValues({ ...base, ...f })).toBe(false);
      }
    });

    it('takes only real calendar days for marked_for_deletion_on', () => {
      expect(['2026-01-31', '2024-02-29'].map(isCalendarDate)).toEqual([true, true]);
      expect(['2026-02-30', '2025-02-29', '2026-13-01', '2026-1-01', '2026-01-31T00:00:00Z', "2026-01-01'", ''].map(isCalendarDate))
        .toEqual([false, false, false, false, false, false, false]);
    });
  });
});
