import type { Actor } from '@glp/service-kit';
import type { VisibilityLevel } from './visibility';

export type StatisticsOrderBy = 'storage_size' | 'repository_size' | 'wiki_size' | 'packages_size';
export type OrderBy = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | 'star_count' | 'similarity' | StatisticsOrderBy;
/** GitLab's `STATISTICS_SORT_PARAMS` (lib/api/helpers/projects_helpers.rb): administrators only. */
export const STATISTICS_ORDER_BY: readonly StatisticsOrderBy[] = ['storage_size', 'repository_size', 'wiki_size', 'packages_size'];
export const ORDER_BY: readonly OrderBy[] = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'];

export type SearchFilter = { kind: 'exact'; value: string } | { kind: 'terms'; patterns: string[] };

export interface ListFilter {
  callerId: number;
  /** all: admin; signed_in: public + internal + own; external: public + own (GitLab's external users); public: anonymous. */
  readScope: 'all' | 'signed_in' | 'external' | 'public';
  /**
   * The caller's effective levels in groups (from identity): projects in those group namespaces, and projects shared
   * with those groups (at the lower of the two levels, until the link expires), count as the caller's.
   */
  groupAccess: { namespaceId: number; level: number }[];
  /** Only projects shared with this group through an unexpired link. */
  sharedWithGroupId?: number;
  /** Only direct forks of this project (GET /projects/:id/forks). */
  forkedFromProjectId?: number;
  owned: boolean;
  membership: boolean;
  /** Only projects directly in this namespace. */
  namespaceId?: number;
  minAccessLevel?: number;
  visibility?: VisibilityLevel;
  archived?: boolean;
  /**
   * GitLab 18's `active` (ProjectsFinder#by_active): `active` = not archived, not marked for deletion, and not in a group
   * that is (or whose ancestor is) marked for deletion; `inactive` = any of those. A string, so that false filters too.
   */
  activity?: 'active' | 'inactive';
  /** Only projects marked for deletion on this day (YYYY-MM-DD). */
  markedForDeletionOn?: string;
  idAfter?: number;
  idBefore?: number;
  topics: string[];
  search?: SearchFilter;
  /** Match the search against the namespace's full path and name too (GitLab's route path and name). */
  searchNamespaces: boolean;
  /** Only projects starred by each of these users (the caller for `starred`, the listed user for starred_projects). */
  starredBy: number[];
  /** Strict bounds on last_activity_at. */
  lastActivityAfter?: Date;
  lastActivityBefore?: Date;
  /** Only projects whose feature is available to the caller (see `featureAvailability`). */
  issuesAvailable: boolean;
  mergeRequestsAvailable: boolean;
  /** True: nothing can match (a programming-language filter without repository language data). */
  none: boolean;
  /** Only projects on this storage shard (already dropped for non-administrators). */
  repositoryStorage?: string;
  /** Only projects having every one of these custom attributes (already dropped for non-administrators). */
  customAttributes?: { key: string; value: string }[];
  /** The raw search string, for the similarity ordering. */
  similarityTo?: string;
  orderBy: OrderBy;
  sort: 'asc' | 'desc';
  page: number;
  perPage: number;
  /** 0: do not count. */
  countLimit: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * GitLab's search (Gitlab::SQL::Pattern): terms split on spaces, quoted phrases kept; terms of
 * 3+ characters are substring matches that must all match; with no such term, an exact match.
 */
export function parseSearch(search: string): SearchFilter | undefined {
  const s = search.trim();
  if (!s) return undefined;
  const terms = [...s.matchAll(/"([^"]+)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '').filter((t) => t.length >= 3);
  if (terms.length === 0) return { kind: 'exact', value: s };
  return { kind: 'terms', patterns: terms.map((t) => `%${escapeLike(t)}%`) };
}

/** Visibilities every caller of a read scope may read, whatever their memberships (GitLab's `public_or_visible_to_user`). */
const READABLE_BY_ALL: Record<ListFilter['readScope'], readonly VisibilityLevel[]> = {
  all: ['private', 'internal', 'public'],
  signed_in: ['internal', 'public'],
  external: ['public'],
  public: ['public'],
};

/** Groups of projects (not pending deletion) that a listing certainly matches: its count is at least theirs. */
export interface CountLowerBound {
  visibilities: VisibilityLevel[];
  /** Only archived (true) or only unarchived (false) projects; undefined: both. */
  archived?: boolean;
  /** Only projects carrying this topic (lower-cased, as topics_lower holds it); undefined: any. */
  topic?: string;
  /**
   * The listing matches exactly these groups, so their sum is its count: nothing the caller is a member of can add a
   * project (an administrator reads every project; an anonymous caller only public ones; a `visibility` the scope
   * reads whatever the memberships holds every project of it already).
   */
  exact: boolean;
  /**
   * The listing matches these groups and, beyond them, only the caller's own private projects (a signed-in user's
   * listing without a visibility: everything internal or public, and the private projects they are a member of), so
   * its count is the sum plus those, counted as the same listing with `visibility=private`.
   */
  plusOwnPrivate: boolean;
}

/**
 * What each listing filter does to the set of projects a read scope sees: `narrows` keeps only some of them (a new
 * filter must be classified here, or the build fails, so the bound below never ignores one); `widens` can only add
 * the caller's own; `none` does not change the set (ordering, paging, counting). `topics` narrows, but one topic is
 * counted too (project_topic_listing_counts).
 */
const FILTER_EFFECT: Record<keyof ListFilter, 'narrows' | 'widens' | 'none'> = {
  callerId: 'widens', readScope: 'none', groupAccess: 'widens', sharedWithGroupId: 'narrows', forkedFromProjectId: 'narrows',
  owned: 'narrows', membership: 'narrows', namespaceId: 'narrows', minAccessLevel: 'narrows', visibility: 'none', archived: 'none',
  activity: 'narrows', markedForDeletionOn: 'narrows',
  idAfter: 'narrows', idBefore: 'narrows', topics: 'narrows', search: 'narrows', searchNamespaces: 'none', starredBy: 'narrows',
  lastActivityAfter: 'narrows', lastActivityBefore: 'narrows', issuesAvailable: 'narrows', mergeRequestsAvailable: 'narrows',
  none: 'narrows', repositoryStorage: 'narrows', customAttributes: 'narrows', similarityTo: 'none', orderBy: 'none', sort: 'none',
  page: 'none', perPage: 'none', countLimit: 'none',
};

/** The filters that narrow (FILTER_EFFECT), listed once: walked for every listing, twice (countLowerBound). */
const NARROWING = (Object.keys(FILTER_EFFECT) as (keyof ListFilter)[]).filter((key) => FILTER_EFFECT[key] === 'narrows');

/** Whether a filter value is in use, as listWhere reads it (false, 0, undefined and [] filter nothing; '' does). */
const inUse = (v: unknown) => v !== undefined && v !== false && v !== 0 && !(Array.isArray(v) && v.length === 0);

/**
 * A lower bound of a listing's count from the per-visibility project counts (store: project_listing_counts, and
 * project_topic_listing_counts for a listing filtered by one topic), or undefined when a filter narrows the listing in
 * a way those counts know nothing of (two topics: their counts say nothing of the projects carrying both). A listing
 * filtered by nothing but the caller's read scope, `visibility`, `archived` and one topic matches every project of
 * the visibilities that scope reads whatever the caller's memberships (all three for an administrator; internal and
 * public for a signed-in user; public for an external user or anonymous), within that visibility, archived state and
 * topic; the caller's own projects can only add to that. When the bound passes GitLab's count cap, the capped count is
 * not needed: its answer, "more than the cap", is known. Where the caller's own projects cannot add any (`exact`), the
 * bound is the count at every size; where they can add only private ones (`plusOwnPrivate`), the count is the bound
 * plus those.
 */
export function countLowerBound(f: ListFilter): CountLowerBound | undefined {
  for (const key of NARROWING) {
    if (key === 'topics' && f.topics.length === 1) continue;
    if (inUse(f[key])) return undefined;
  }
  const readable = READABLE_BY_ALL[f.readScope];
  const visibilities = f.visibility ? readable.filter((v) => v === f.visibility) : [...readable];
  if (visibilities.length === 0) return undefined;
  const exact = f.readScope === 'all' || f.readScope === 'public' || f.visibility !== undefined;
  const plusOwnPrivate = !exact && f.readScope === 'signed_in';
  return { visibilities, archived: f.archived, topic: f.topics[0]?.toLowerCase(), exact, plusOwnPrivate };
}

/**
 * Whether a listing's statements plan alike for any of its values, so that PostgreSQL's generic plan (planned once per
 * connection) serves it as well as a plan for its values would: no filter but the read scope, `visibility` and
 * `archived`, and none of the caller's memberships in it (an administrator's or an anonymous caller's listing, or a
 * visibility every caller of the scope reads; the count is then the per-visibility counts: `exact`). Its values are
 * then the caller (read only by listing_versions, by primary key), LIMIT and OFFSET; visibility and archived are
 * written into the SQL (store: listWhere), so each plan is made for their statistics (the 100 archived projects of
 * 100,000 are read through their partial index and sorted, not found by walking the ordering index:
 * listing-plans.test.ts). A namespace, topic, search or membership is skewed (a namespace of half the projects, a user
 * in 5,000 projects) and is planned for its value every time; so is an id bound, but on a keyset page (walksFromIdBound).
 */
export function plansAlikeForAnyValues(f: ListFilter): boolean {
  const bound = countLowerBound(walksFromIdBound(f) ? { ...f, idAfter: undefined, idBefore: undefined } : f);
  return bound !== undefined && bound.exact && bound.topic === undefined;
}

/**
 * A page ordered by id and bounded by id, with no count (keyset pagination, GitLab's only keyset ordering for projects):
 * whatever the bound, its plan is a walk of an id index from the bound, which the page's LIMIT stops. Counted, an id
 * bound is skewed like any range (`id_after` near the last id matches a handful of projects, near the first all of
 * them), and the count is planned for its value.
 */
function walksFromIdBound(f: ListFilter): boolean {
  return (inUse(f.idAfter) || inUse(f.idBefore)) && (f.orderBy === 'id' || f.orderBy === 'created_at') && f.countLimit <= 0;
}

/**
 * Whether a listing is the caller's projects and nothing else (`membership=true` with no filter that narrows it further,
 * no visibility and no archived state): then its count is how many distinct projects the caller's memberships,
 * namespace, groups and group shares name, less those pending deletion, read from those sources alone. Counted
 * through the projects instead, it probed a project by id for each of them (5,000 memberships at 1,000,000
 * projects: 26 ms of PostgreSQL against 4-7 ms).
 */
export function countsCallerProjectsAlone(f: ListFilter): boolean {
  if (!f.membership || f.visibility !== undefined || f.archived !== undefined) return false;
  return NARROWING.every((key) => key === 'membership' || !inUse(f[key]));
}

/** The `active` param as the listing filter reads it (unset: both). */
export function activityOf(active: boolean | undefined): ListFilter['activity'] {
  if (active === undefined) return undefined;
  return active ? 'active' : 'inactive';
}

/** A YYYY-MM-DD that names a real day (the `marked_for_deletion_on` filter). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

export function readScopeOf(actor: Actor): ListFilter['readScope'] {
  if (actor.admin) return 'all';
  if (actor.kind !== 'user') return 'public';
  return actor.external ? 'external' : 'signed_in';
}

/** Non-admins asking for an admin-only ordering get the default, as in GitLab. */
export function resolveOrderBy(orderBy: string): OrderBy {
  return (ORDER_BY as readonly string[]).includes(orderBy) ? (orderBy as OrderBy) : 'created_at';
}

/**
 * The ordering actually applied (GitLab's `support_order_by_similarity!`): `similarity` needs a non-blank search and
 * a signed-in caller, and then limits the listing to the caller's projects (`non_public`: membership); otherwise it is
 * the default `created_at`. The statistics orderings are for administrators (`verify_statistics_order_by_projects!`:
 * `use_project_statistics_filters`); anyone else silently gets the default, as do unknown orderings.
 */
export function resolveOrdering(orderBy: string, search: string, signedIn: boolean, admin = false): { orderBy: OrderBy; membership: boolean } {
  if ((STATISTICS_ORDER_BY as readonly string[]).includes(orderBy)) {
    return { orderBy: admin ? (orderBy as StatisticsOrderBy) : 'created_at', membership: false };
  }
  if (orderBy === 'similarity') {
    return search.trim() !== '' && signedIn ? { orderBy: 'similarity', membership: true } : { orderBy: 'created_at', membership: false };
  }
  return { orderBy: resolveOrderBy(orderBy), membership: false };
}

/** GitLab's ProjectFeature levels stored in settings (`*AccessLevel`); an absent key is the default "enabled". */
export type FeatureLevel = 'disabled' | 'private' | 'enabled' | 'public';
export const FEATURE_LEVELS: readonly FeatureLevel[] = ['disabled', 'private', 'enabled', 'public'];

/**
 * Which feature levels count as available to the caller (`with_feature_available_for_user`): "enabled" (and "public")
 * for anyone who can read the project; "private" for administrators and for members with at least `privateMinLevel`
 * (Guest for issues, Reporter for merge requests: ProjectFeature::PRIVATE_FEATURES_MIN_ACCESS_LEVEL); "disabled" never.
 */
export function featureAvailability(caller: { admin: boolean; signedIn: boolean }, privateMinLevel: number):
  { always: FeatureLevel[]; privateForLevel: number | null } {
  if (caller.admin) return { always: ['enabled', 'public', 'private'], privateForLevel: null };
  return { always: ['enabled', 'public'], privateForLevel: caller.signedIn ? privateMinLevel : null };
}

export const ISSUES_PRIVATE_MIN_LEVEL = 10;
export const MERGE_REQUESTS_PRIVATE_MIN_LEVEL = 20;

/**
 * `with_programming_language`: GitLab applies `with_programming_language(lang)` whenever the param is sent (Ruby's
 * `if lang`: an empty string too), joining the repository's detected languages. No repository (so no language) data
 * exists here, so a sent value matches no project; not sent (undefined) filters nothing.
 */
export function programmingLanguageMatchesNothing(language: string | undefined): boolean {
  return language !== undefined;
}

/**
 * GitLab EE's `repository_checksum_failed` / `wiki_checksum_failed` (`verification_failed_repos` / `_wikis`): only
 * projects whose Geo checksum verification failed. Without a Geo secondary no checksum is ever verified, so asking
 * for failures matches no project; false filters nothing.
 */
export function checksumFailuresMatchNothing(req: { repositoryChecksumFailed: boolean; wikiChecksumFailed: boolean }): boolean {
  return req.repositoryChecksumFailed || req.wikiChecksumFailed;
}

/**
 * GitLab's `ProjectsFinder#collection_without_user` (app/finders/projects_finder.rb): an anonymous caller asking for
 * `membership` (the API's `non_public`), `owned` or `min_access_level` gets `Project.none`, not the public projects.
 */
export function anonymousMatchesNothing(signedIn: boolean, f: { membership: boolean; owned: boolean; minAccessLevel?: number }): boolean {
  return !signedIn && (f.membership || f.owned || f.minAccessLevel !== undefined);
}

/** `repository_storage` is an administrator-only filter (`verify_project_filters!`): dropped for others, blank ignored. */
export function repositoryStorageFilter(storage: string, admin: boolean): string | undefined {
  return admin && storage !== '' ? storage : undefined;
}
