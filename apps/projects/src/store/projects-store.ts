import type { Pool, PoolClient } from '@glp/db';
import type { NewProject } from '../domain/new-project';
import { VISIBILITY_LEVELS, type VisibilityLevel } from '../domain/visibility';
import type { ProjectPatch } from '../domain/project-edit';
import {
  countLowerBound, countsCallerProjectsAlone, FEATURE_LEVELS, featureAvailability, ISSUES_PRIVATE_MIN_LEVEL, MERGE_REQUESTS_PRIVATE_MIN_LEVEL, STATISTICS_ORDER_BY, type CountLowerBound,
  type ListFilter, type SearchFilter,
} from '../domain/list-filter';
import { containerPolicyNextRunsAt, touchesContainerPolicy } from '../domain/project-settings';
import { PROJECT_FROM, PROJECT_JOINS, PROJECT_SELECT, VERSION_COLUMNS, type ProjectRow, type ProjectVersionRow } from './project-rows';
import { listingStatement } from './listing-statements';
import { recordProjectRoute } from './redirect-routes-store';

type Queryable = Pool | PoolClient;

export async function insertProject(
  db: PoolClient,
  p: NewProject & { namespaceId: number; creatorId: number; repositoryStorage?: string },
): Promise<number> {
  // With its statistics row (all sizes 0) in the same statement; runners_token is the column's default (0009).
  const { rows } = await db.query<{ id: number }>(
    `WITH p AS (
       INSERT INTO projects (namespace_id, name, path, description, visibility, creator_id, default_branch, topics, settings, repository_storage)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING id
     ), s AS (INSERT INTO project_statistics (project_id) SELECT id FROM p)
     SELECT id FROM p`,
    [p.namespaceId, p.name, p.path, p.description, p.visibility, p.creatorId, p.defaultBranch, p.topics, JSON.stringify(p.settings), p.repositoryStorage ?? 'default'],
  );
  await recordProjectRoute(db, rows[0]!.id, null); // its path takes over any redirect there (GitLab's Route after_create)
  return rows[0]!.id;
}

export async function insertMember(db: PoolClient, m: { projectId: number; userId: number; accessLevel: number; createdBy: number }): Promise<void> {
  await db.query(
    `INSERT INTO project_members (project_id, user_id, access_level, created_by) VALUES ($1,$2,$3,$4)
     ON CONFLICT (project_id, user_id) DO NOTHING`,
    [m.projectId, m.userId, m.accessLevel, m.createdBy],
  );
}

/** Which of name / path already exist in the namespace (case-insensitive). */
export async function takenInNamespace(db: Queryable, namespaceId: number, name: string, path: string): Promise<{ name: boolean; path: boolean }> {
  const { rows } = await db.query<{ name_taken: boolean; path_taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND lower(name) = lower($2)) AS name_taken,
            EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND lower(path) = lower($3)) AS path_taken`,
    [namespaceId, name, path],
  );
  return { name: rows[0]!.name_taken, path: rows[0]!.path_taken };
}

export async function findProjectById(db: Queryable, id: number, callerId: number): Promise<ProjectRow | undefined> {
  // Named: prepared once per connection (the hottest read of the API).
  const { rows } = await db.query<ProjectRow>({ name: 'project_by_id', text: `${PROJECT_SELECT} WHERE p.id = $2`, values: [callerId, id] });
  return rows[0];
}

/** `namespace/path`, case-insensitive: the namespace by full path, then the project by (namespace, path). */
export async function findProjectByFullPath(db: Queryable, fullPath: string, callerId: number): Promise<ProjectRow | undefined> {
  const slash = fullPath.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const { rows } = await db.query<ProjectRow>({
    name: 'project_by_full_path',
    text: `${PROJECT_SELECT} WHERE lower(n.full_path) = lower($2) AND lower(p.path) = lower($3)`,
    values: [callerId, fullPath.slice(0, slash), fullPath.slice(slash + 1)],
  });
  return rows[0];
}

/**
 * The projects at these `namespace/path`s, case-insensitive as findProjectByFullPath reads one: for each path found, its
 * position in `fullPaths` and the project's id, in one statement (the namespaces by lower(full_path), then the projects
 * by (namespace, lower(path))). A path without a slash, or at no project, is absent.
 */
export async function projectIdsByFullPaths(db: Queryable, fullPaths: readonly string[]): Promise<Map<number, number>> {
  const split = fullPaths.map((f) => {
    const slash = f.lastIndexOf('/');
    return slash <= 0 ? ['', ''] : [f.slice(0, slash), f.slice(slash + 1)];
  });
  const { rows } = await db.query<{ i: string; id: string }>({
    name: 'project_ids_by_full_paths',
    text: `SELECT x.i, p.id
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x (ns, path, i)
           JOIN namespaces n ON lower(n.full_path) = lower(x.ns)
           JOIN projects p ON p.namespace_id = n.id AND lower(p.path) = lower(x.path)
           WHERE x.path <> ''`,
    values: [split.map(([ns]) => ns), split.map(([, path]) => path)],
  });
  return new Map(rows.map((r) => [Number(r.i) - 1, Number(r.id)]));
}

const ORDER_COLUMNS: Record<Exclude<ListFilter['orderBy'], 'similarity'>, string> = {
  id: 'p.id',
  created_at: 'p.id', // GitLab orders created_at by id
  name: 'lower(p.name)',
  path: 'lower(p.path)',
  updated_at: 'p.updated_at',
  last_activity_at: 'p.last_activity_at',
  star_count: 'p.star_count',
  // Administrators only (resolveOrdering); the listing joins project_statistics ps for them (0009 indexes).
  storage_size: 'ps.storage_size',
  repository_size: 'ps.repository_size',
  wiki_size: 'ps.wiki_size',
  packages_size: 'ps.packages_size',
};

const STATISTICS_ORDERINGS: ReadonlySet<ListFilter['orderBy']> = new Set(STATISTICS_ORDER_BY);

/** A settings feature level as stored (absent key: the default "enabled"); the expression of its index (0005). */
const featureLevel = (key: 'issuesAccessLevel' | 'mergeRequestsAccessLevel') => `COALESCE(p.settings ->> '${key}', 'enabled')`;

/** An unexpired share link `l` (expires_at is exclusive, as for memberships). */
const LINK_ACTIVE = '(l.expires_at IS NULL OR l.expires_at > current_date)';

/**
 * WHERE clause for a listing (`$1` = caller id), built only from fixed SQL and bound values; with `membership`, also
 * the caller's projects as a SELECT of ids (with repeats, and those pending deletion), over the same values.
 */
function listWhere(f: ListFilter): { sql: string; values: unknown[]; callerProjects?: string } {
  const values: unknown[] = [f.callerId];
  const bind = (v: unknown) => `$${values.push(v)}`;
  const where = ['NOT p.pending_delete'];
  if (f.none) where.push('false');
  // The caller's level in each project: owner of the personal namespace (50), direct membership, group access, and
  // access through a group the project is shared with (the lower of the group level and the link's, unexpired links).
  let inGroup = () => 'false';
  let inShare = () => 'false';
  let groupLevel = () => '0';
  let shareLevel = () => '0';
  // The caller's projects by where they come from, as SELECTs of ids: their unexpired memberships, their personal
  // namespace, and (with groups) their groups' namespaces and the projects shared with those groups.
  const myMemberships = `SELECT pm.project_id FROM project_members pm WHERE pm.user_id = $1 AND (pm.expires_at IS NULL OR pm.expires_at > current_date)`;
  const myNamespaces = `SELECT n2.id FROM namespaces n2 WHERE n2.owner_id = $1 AND n2.kind = 'user'`;
  let myGroupSources = (): string[] => [];
  if (f.groupAccess.length) {
    // Bound when first written, never otherwise: a value no SQL reads has no type PostgreSQL can infer, and the
    // statement fails ("could not determine data type of parameter"), as a signed-in user in a group listing
    // `visibility=internal` (which reads no membership) did.
    let ids: string | undefined;
    const groupIds = () => (ids ??= bind(f.groupAccess.map((g) => g.namespaceId)));
    const sharedWithMyGroups = () => `SELECT l.project_id FROM project_group_links l WHERE l.group_id = ANY(${groupIds()}::bigint[]) AND ${LINK_ACTIVE}`;
    myGroupSources = () => [`SELECT pg.id FROM projects pg WHERE pg.namespace_id = ANY(${groupIds()}::bigint[])`, sharedWithMyGroups()];
    inGroup = () => `p.namespace_id = ANY(${groupIds()}::bigint[])`;
    inShare = () => `p.id = ANY(ARRAY(${sharedWithMyGroups()}))`;
    let levels: string | undefined;
    const bindLevels = () => (levels ??= bind(f.groupAccess.map((g) => g.level)));
    groupLevel = () => `COALESCE((SELECT ga.level FROM unnest(${groupIds()}::bigint[], ${bindLevels()}::int[]) AS ga(ns, level) WHERE ga.ns = p.namespace_id), 0)`;
    shareLevel = () => `COALESCE((SELECT max(LEAST(ga.level, l.group_access)) FROM project_group_links l
      JOIN unnest(${groupIds()}::bigint[], ${bindLevels()}::int[]) AS ga(ns, level) ON ga.ns = l.group_id
      WHERE l.project_id = p.id AND ${LINK_ACTIVE}), 0)`;
  }
  // The caller's projects (an unexpired membership, their personal namespace, their groups' namespaces, a share with one
  // of their groups), written as conditions on p.id and p.namespace_id against arrays computed once (InitPlans), so
  // PostgreSQL answers it from indexes (a BitmapOr) instead of testing every project (npm run bench:listings).
  const ownProjects = `ARRAY(${myMemberships})`;
  const ownNamespaces = `ARRAY(${myNamespaces})`;
  const member = () => `(p.id = ANY(${ownProjects}) OR p.namespace_id = ANY(${ownNamespaces}) OR ${inGroup()} OR ${inShare()})`;
  // The same test for the visibility rule. Unless the listing asks for private projects only (where the BitmapOr over
  // the private ones and the caller's is the plan), `visibility IN ('public', 'internal')` matches most projects and
  // they are read in order or sequentially, so the membership test runs for every private project read. Not as
  // `p.id = ANY(<array>)`, which PostgreSQL checks by walking the whole array each time (listing-plans.test.ts at
  // 100,000 projects and 500 memberships, page + count: signed-in default 22.1 ms, external user 40.8 ms), but as the
  // joined membership row `m` (8.7 ms, 15.0 ms) or `p.id IN (<the caller's project ids>)`, a hashed SubPlan (the ids
  // read once into a hash table, each project a lookup). They execute alike; the join costs ~0.65 ms of planning more
  // (a signed-in user's default page statement: 0.83-0.92 ms, 0.18-0.19 ms with the subquery; bench/README.md), but
  // where the listing is driven from the caller's side (starred, a search's matches, min_access_level), PostgreSQL
  // planned the subquery form into walks of the whole index (starred: 7.0 -> 67.4 ms; a search matching every project
  // 27.7 -> 44.4 ms), so those keep the join. (membership=true has no rule at all: below.)
  const drivenByCaller = f.minAccessLevel !== undefined || f.starredBy.length > 0 || f.search !== undefined;
  const readable = () => (f.visibility === 'private' ? member()
    : `(${drivenByCaller ? 'm.project_id IS NOT NULL' : `p.id IN (${myMemberships})`} OR p.namespace_id = ANY(${ownNamespaces}) OR ${inGroup()} OR ${inShare()})`);
  const callerLevel = () => `GREATEST(CASE WHEN n.owner_id = $1 THEN 50 ELSE 0 END, COALESCE(m.access_level, 0), ${groupLevel()}, ${shareLevel()})`;
  if (f.readScope === 'public') where.push("p.visibility = 'public'");
  // membership=true (below) lists only the caller's projects, each of which the rule's "or the caller's" arms read
  // (the same memberships, personal namespace, groups and group shares): the rule would only cost planning (~1 ms).
  else if ((f.readScope === 'signed_in' || f.readScope === 'external') && !f.membership) {
    // With a visibility asked, the rule is one side of its OR: every project of a visibility the scope opens (the filter
    // below is the whole rule), or only the caller's of one it does not. Left as an OR beside `p.visibility = 'private'`,
    // PostgreSQL counted the open side's share of matches (it does not see that the two exclude each other) and walked
    // an index over all 100,000 projects to count a member's 232 private ones (listing-plans.test.ts).
    const open = f.readScope === 'signed_in' ? ['public', 'internal'] : ['public'];
    if (!f.visibility) where.push(`(p.visibility IN (${open.map((v) => `'${v}'`).join(', ')}) OR ${readable()})`);
    else if (!open.includes(f.visibility)) where.push(readable());
  }
  if (f.owned) where.push(`n.owner_id = $1`);
  // membership=true: the caller's projects as ONE set of ids, `p.id IN (<union of where they come from>)`, a semi-join
  // PostgreSQL can drive from the caller's side (their memberships, their namespace's and their groups' projects, the
  // projects shared with their groups) with row estimates from the statistics, or test per row with a hash. As an OR of
  // `= ANY(array)` it walked the ordering index testing every project against the whole array (5,000 memberships at
  // 1,000,000 projects: p50 66.7 ms at one connection).
  let callerProjects: string | undefined;
  if (f.membership) {
    const sources = [myMemberships, `SELECT po.id FROM projects po WHERE po.namespace_id IN (${myNamespaces})`, ...myGroupSources()];
    callerProjects = sources.join(' UNION ALL ');
    where.push(`p.id IN (${callerProjects})`);
  }
  if (f.minAccessLevel !== undefined) where.push(`${callerLevel()} >= ${bind(f.minAccessLevel)}`);
  if (f.namespaceId) where.push(`p.namespace_id = ${bind(f.namespaceId)}`);
  // A project's direct forks: their ids from project_forks_source_idx, computed once (InitPlan), then by primary key.
  if (f.forkedFromProjectId) where.push(`p.id = ANY(ARRAY(SELECT pf.project_id FROM project_forks pf WHERE pf.forked_from_project_id = ${bind(f.forkedFromProjectId)}))`);
  if (f.sharedWithGroupId) {
    where.push(`EXISTS (SELECT 1 FROM project_group_links l WHERE l.project_id = p.id AND l.group_id = ${bind(f.sharedWithGroupId)} AND ${LINK_ACTIVE})`);
  }
  // Visibility and archived are written into the SQL, not bound: a prepared statement's generic plan is then made for
  // their statistics (plansAlikeForAnyValues), one text for each value of either.
  if (f.visibility) where.push(`p.visibility = ${visibilityLiteral(f.visibility)}`);
  if (f.archived !== undefined) where.push(f.archived ? 'p.archived' : 'NOT p.archived');
  if (f.activity) where.push(activityWhere(f.activity));
  // projects_marked_for_deletion_idx (0004).
  if (f.markedForDeletionOn) where.push(`p.marked_for_deletion_on = ${bind(f.markedForDeletionOn)}::date`);
  if (f.idAfter) where.push(`p.id > ${bind(f.idAfter)}`);
  if (f.idBefore) where.push(`p.id < ${bind(f.idBefore)}`);
  if (f.topics.length) where.push(`p.topics_lower @> ${bind(f.topics.map((t) => t.toLowerCase()))}::text[]`);
  for (const userId of f.starredBy) where.push(`EXISTS (SELECT 1 FROM stars s WHERE s.project_id = p.id AND s.user_id = ${bind(userId)})`);
  if (f.lastActivityAfter) where.push(`p.last_activity_at > ${bind(f.lastActivityAfter)}`);
  if (f.lastActivityBefore) where.push(`p.last_activity_at < ${bind(f.lastActivityBefore)}`);
  if (f.repositoryStorage !== undefined) where.push(`p.repository_storage = ${bind(f.repositoryStorage)}`);
  // GitLab's by_custom_attributes: one EXISTS per pair, each an index-only probe of (key, value, project_id) (0008).
  for (const a of f.customAttributes ?? []) {
    where.push(`EXISTS (SELECT 1 FROM project_custom_attributes ca WHERE ca.key = ${bind(a.key)} AND ca.value = ${bind(a.value)} AND ca.project_id = p.id)`);
  }
  const features = [
    [f.issuesAvailable, 'issuesAccessLevel', ISSUES_PRIVATE_MIN_LEVEL],
    [f.mergeRequestsAvailable, 'mergeRequestsAccessLevel', MERGE_REQUESTS_PRIVATE_MIN_LEVEL],
  ] as const;
  for (const [wanted, key, privateMin] of features) {
    if (!wanted) continue;
    const rule = featureAvailability({ admin: f.readScope === 'all', signedIn: f.callerId > 0 }, privateMin);
    // Written as "not one of the other levels": a feature is available on most projects, so no index narrows it; the
    // page follows its ordering index and the count reads sequentially up to its cap (a bitmap over most of the
    // table cost 125-160 ms at 100,000 projects: test/integration/listing-plans.test.ts).
    const never = FEATURE_LEVELS.filter((l) => !rule.always.includes(l));
    const always = `${featureLevel(key)} <> ALL(${bind(never)}::text[])`;
    where.push(rule.privateForLevel === null ? always
      : `(${always} OR (${featureLevel(key)} = 'private' AND ${callerLevel()} >= ${bind(rule.privateForLevel)}))`);
  }
  if (f.search) where.push(searchWhere(f.search, f.searchNamespaces, bind));
  return { sql: where.join(' AND '), values, callerProjects };
}

/**
 * GitLab 18's `active` filter: the project neither archived nor marked for deletion, and its group (or an ancestor) not
 * marked either; `inactive`, any of them. The marked groups' ids are read once (an InitPlan over the read model's
 * partial index, 0025), so each alternative is a condition on `p`: archived (projects_archived_id_idx), marked
 * (projects_marked_for_deletion_idx), in a marked group (the namespace index).
 */
function activityWhere(activity: 'active' | 'inactive'): string {
  const markedGroups = 'ARRAY(SELECT ns.id FROM namespaces ns WHERE ns.self_or_ancestor_marked)';
  return activity === 'active'
    ? `(NOT p.archived AND p.marked_for_deletion_on IS NULL AND p.namespace_id <> ALL(${markedGroups}))`
    : `(p.archived OR p.marked_for_deletion_on IS NOT NULL OR p.namespace_id = ANY(${markedGroups}))`;
}

/** A visibility as an SQL literal; anything but the three levels is refused, never written into SQL. */
function visibilityLiteral(v: VisibilityLevel): string {
  if (!VISIBILITY_LEVELS.includes(v)) throw new Error(`not a visibility level: ${String(v)}`);
  return `'${v}'`;
}

/** Projects whose namespace matches `condition` (on namespaces `ns`): the matching ids computed once (an InitPlan). */
const namespacesWhere = (condition: string) => `p.namespace_id = ANY(ARRAY(SELECT ns.id FROM namespaces ns WHERE ${condition}))`;

/**
 * GitLab's `fuzzy_search` over path, name and description; with search_namespaces over the project's route path
 * (`namespace/full/path/project`) and route name instead of path and name. Every term must match within one column.
 * A term without "/" lies within one segment of the route path, so it matches the namespace's full path or the
 * project's path (each with a trigram index); only a term containing "/" is matched against the joined route.
 * The route name is approximated by `<namespace name> / <project name>` (the read model has no ancestor names).
 * A namespace match is written as `p.namespace_id = ANY(<ids of matching namespaces>)` (computed once, from the
 * namespaces' trigram indexes), so every alternative is a condition on `p` and PostgreSQL combines the projects
 * indexes in one BitmapOr instead of reading every project to test the joined namespace.
 */
function searchWhere(search: SearchFilter, namespaces: boolean, bind: (v: unknown) => string): string {
  if (search.kind === 'exact') {
    const v = bind(search.value);
    const own = [`lower(p.name) = lower(${v})`, `lower(p.path) = lower(${v})`, `lower(p.description) = lower(${v})`];
    if (namespaces) {
      const slash = search.value.lastIndexOf('/');
      if (slash > 0) own.push(`(${namespacesWhere(`lower(ns.full_path) = lower(${bind(search.value.slice(0, slash))})`)} AND lower(p.path) = lower(${bind(search.value.slice(slash + 1))}))`);
      const sep = search.value.lastIndexOf(' / ');
      if (sep > 0) own.push(`(${namespacesWhere(`lower(ns.name) = lower(${bind(search.value.slice(0, sep))})`)} AND lower(p.name) = lower(${bind(search.value.slice(sep + 3))}))`);
    }
    return `(${own.join(' OR ')})`;
  }
  const terms = search.patterns.map((pattern) => ({ pattern, bound: bind(pattern) }));
  const all = (match: (t: { pattern: string; bound: string }) => string) => `(${terms.map(match).join(' AND ')})`;
  const columns = namespaces
    ? [
        all((t) => (t.pattern.includes('/') ? `(n.full_path || '/' || p.path) ILIKE ${t.bound}` : `(${namespacesWhere(`ns.full_path ILIKE ${t.bound}`)} OR p.path ILIKE ${t.bound})`)),
        all((t) => (t.pattern.includes(' / ') ? `(n.name || ' / ' || p.name) ILIKE ${t.bound}` : `(${namespacesWhere(`ns.name ILIKE ${t.bound}`)} OR p.name ILIKE ${t.bound})`)),
        all((t) => `p.description ILIKE ${t.bound}`),
      ]
    : ['p.path', 'p.name', 'p.description'].map((c) => all((t) => `${c} ILIKE ${t.bound}`));
  return `(${columns.join(' OR ')})`;
}

/**
 * GitLab's `sorted_by_similarity_desc` (Gitlab::Database::SimilarityScore): pg_trgm similarity to the search, path
 * ×1 + name ×0.7 + description ×0.2, highest first, id descending as the tie-breaker.
 */
function similarityOrder(search: string, values: unknown[]): string {
  const q = `$${values.push(search)}::text`;
  const sim = (col: string, mult: string) => `(public.similarity(COALESCE(${col}, ''), ${q}) * CAST('${mult}' AS numeric))`;
  return `${sim('p.path', '1')} + ${sim('p.name', '0.7')} + ${sim('p.description', '0.2')} DESC, p.id DESC`;
}

/**
 * The FROM of a listing's count and of its page's ids: the projects and, only when the SQL (filter, ordering) reads
 * them, their namespace (`n`: every project has exactly one, a NOT NULL foreign key, so the join never changes the rows)
 * and the caller's membership (`m`: at most one row per project). The namespace join would otherwise probe namespaces
 * once for every row the ids walk past (page 25 of 20: 500 probes, 1,500 of the page query's 1,849 buffer hits at
 * 100,000 projects). PostgreSQL drops an unused LEFT JOIN on a unique key by itself, but proving it unused is planning
 * on every custom-planned listing (a signed-in user's: 0.02–0.06 ms, bench/README.md); it is kept where it is the only
 * reader of the caller (`$1`), since a bound value no SQL reads has no type PostgreSQL can infer.
 */
const LISTING_FROM = (sql: string) => {
  let from = PROJECT_FROM;
  if (!/\bn\./.test(sql)) from = from.replace(/\n\s*JOIN namespaces n ON n\.id = p\.namespace_id/, '');
  if (!/\bm\./.test(sql) && /\$1(?!\d)/.test(sql)) from = from.replace(/\n\s*LEFT JOIN project_members m ON [^\n]*/, '');
  return from;
};

/**
 * One page of projects with their namespace and the caller's access, and the capped total (run alongside; for a search,
 * from its matches: SEARCH_SET_LIMIT).
 *
 * The page is a deferred join: the ids of the page are chosen first (filter, ordering index, OFFSET) and only those
 * rows get the select list's per-row subqueries (share links, fork source, import source). Written as one
 * `SELECT … ORDER BY … LIMIT … OFFSET …`, PostgreSQL computes the select list for every row it skips: page 25 of 20
 * ran the subqueries 500 times (10.5 ms at 100,000 projects, against ~1 ms for the ids alone).
 *
 * The ids and the rows are two statements. The ids' SQL changes with the filters; the rows' SQL never does, so it is
 * a named statement, parsed and planned once per connection (PostgreSQL settles on its generic plan: primary-key
 * probes). Planning the rows' select list (three subqueries, six joins) cost ~0.8 ms every time it was inlined in the
 * ids' statement: at 100,000 projects one page went from 1.8 ms of PostgreSQL (one unprepared statement) to
 * 0.4 ms (ids) + 0.4 ms (rows). Each statement reads its own snapshot (read committed, as GitLab's listing and its
 * preloads): a project deleted between the two is left out of the page, not shown half. Where the count may be
 * answered by the per-visibility counts, they are read by the ids' statement (pageIdsWithBound); the walk, when still
 * needed, then runs beside the rows.
 */
export async function listProjects(db: Queryable, f: ListFilter): Promise<{ rows: ProjectRow[]; total: number }> {
  return listProjectPage(db, f, { byIds: (ids) => rowsByIds(db, f.callerId, ids) });
}

/**
 * How a listing's page is loaded, in the listing's order (a project deleted meanwhile is left out; never called for an
 * empty page): from its ids, or from its projects' versions (what their kept encodings are keyed by), which the
 * statement choosing the page then reads with it (listing_versions, migration 0022: one statement, not two).
 */
export type PageLoader<T> = { byIds(ids: string[]): Promise<T[]> } | { byVersions(versions: ProjectVersionRow[]): Promise<T[]> };

/** A page as its statement read it: its projects' versions where the loader takes them, else their ids. */
type ReadPage = { versions: ProjectVersionRow[] } | { ids: string[] };

function loadPage<T>(loader: PageLoader<T>, page: ReadPage): Promise<T[]> {
  if ('byVersions' in loader) return 'versions' in page && page.versions.length ? loader.byVersions(page.versions) : Promise.resolve([]);
  return 'ids' in page && page.ids.length ? loader.byIds(page.ids) : Promise.resolve([]);
}

/**
 * How a listing's statements will be planned: `plannedOnce` when they run on connections that keep generic plans
 * (the projects service's DB_GENERIC_PLAN_POOL_MAX pool, for listings whose plan no value changes).
 */
export interface ListingPlans {
  plannedOnce: boolean;
}

/**
 * The page's versions over the ids `idsSql` chooses (`$1` the caller), with `ord` their place in the page, in no order
 * (inPageOrder puts them in it). Read by listing_versions (migration 0022), whose plan PL/pgSQL keeps, where the
 * statement is planned for its values on every execution (the join inline would be planned again each time, ~0.5
 * ms); written inline, with VERSION_COLUMNS (the function's expressions, which the rows' statement reads too), where
 * the statement is planned once (`plannedOnce`). Offset page 25 at 100,000 projects on its generic plan, six rounds of
 * 5,000 alternated on one connection, PostgreSQL's CPU a listing: through the function 0.206–0.246 ms, inline
 * 0.186–0.210 ms; then without the statement's `ORDER BY ord` (a Sort node to start and run on every execution)
 * 0.198–0.238 ms against 0.212–0.290 ms with it (bench/README.md, "The page's versions read inline, in no order").
 */
const VERSIONS_OF = (idsSql: string, plans: ListingPlans) => plans.plannedOnce
  ? `SELECT p.id, p.namespace_id, ${VERSION_COLUMNS}, page.ord::int AS ord
     FROM unnest(ARRAY(${idsSql})) WITH ORDINALITY AS page (id, ord)
     JOIN projects p ON p.id = page.id${PROJECT_JOINS}`
  : `SELECT v.id, v.namespace_id, v.member_access, v.row_version, v.namespace_version, v.self_contained, v.ord::int AS ord
   FROM listing_versions(ARRAY(${idsSql}), $1::bigint) v`;

/** A page's versions as VERSIONS_OF reads them (an empty page's row of nulls left out), in the page's order. */
function inPageOrder(rows: readonly ({ [K in keyof ProjectVersionRow]: ProjectVersionRow[K] | null } & { ord: number | null })[]): ProjectVersionRow[] {
  const listed = rows.filter((r): r is ProjectVersionRow & { ord: number } => r.id !== null && r.ord !== null);
  return listed.sort((a, b) => a.ord - b.ord);
}

/** A listing's page and total as `listProjects` chooses and counts them, the page's projects loaded by `loader`, beside the count. */
export async function listProjectPage<T>(
  db: Queryable, f: ListFilter, loader: PageLoader<T>, plans: ListingPlans = { plannedOnce: false },
): Promise<{ rows: T[]; total: number }> {
  const versions = 'byVersions' in loader;
  const { sql, values, callerProjects } = listWhere(f);
  const totalOf = (n: number | undefined) => (f.countLimit <= 0 || n === undefined || n > f.countLimit ? -1 : n);
  if (f.search) {
    // A search's matches first (SEARCH_SET_LIMIT), as one row: their number up to the limit + 1, and their ids when
    // they are at most the limit; the page is then chosen among those ids.
    const { rows: [matched] } = await db.query<{ n: number; ids: string[] | null }>(listingStatement(
      `SELECT count(*)::int AS n, CASE WHEN count(*) <= ${SEARCH_SET_LIMIT} THEN COALESCE(array_agg(s.id), '{}') END AS ids
       FROM ${firstMatches(sql, SEARCH_SET_LIMIT + 1)}`,
      values,
    ));
    if (matched?.ids) {
      const rows = matched.ids.length ? await pageOf(db, f, 'p.id = ANY($2::bigint[])', [f.callerId, matched.ids], loader, plans) : [];
      return { rows, total: totalOf(matched.n) };
    }
    // More matches than that: at least one project in every N / SEARCH_SET_LIMIT matches, dense enough for the ordering
    // index to reach a page soon; and the total is over any count cap up to SEARCH_SET_LIMIT.
    if (f.countLimit <= SEARCH_SET_LIMIT) return { rows: await pageOf(db, f, sql, values, loader, plans), total: -1 };
  }
  // GitLab's count, up to the cap + 1 (`total_count_with_limit`), is the matches walked until one more than the cap.
  // When the listing's filters allow a lower bound from the per-visibility counts (countLowerBound) and that bound is
  // over the cap, the walk is skipped: at 100,000 projects an administrator's `visibility=internal` walked 10,001
  // index entries (2.2 ms of PostgreSQL on a slow core) where a read of a few counter rows answers the same. Where the
  // bound is the count itself (an administrator's or an anonymous caller's listing, or one asking for a visibility the
  // caller reads whatever their memberships), it answers below the cap too: an instance of 10,000 projects no longer
  // walks all of them for every page of an administrator's listing.
  const bound = f.countLimit > 0 ? countLowerBound(f) : undefined;
  if (bound?.exact) {
    const page = await pageIdsWithBound(db, f, sql, values, bound, versions, plans);
    return { rows: await loadPage(loader, page), total: totalOf(page.atLeast) };
  }
  // A signed-in user's listing without a visibility: the bound (internal and public) plus their own private projects
  // that match, counted as the same listing asking for `visibility=private` (the caller's memberships, namespace,
  // groups and shares first: listWhere), never walking the internal and public ones the counts already hold (at
  // 100,000 projects a member's `topic=t7` walked its ~1,350 matches, the default listing 10,001).
  if (bound?.plusOwnPrivate) {
    const page = await pageIdsWithBound(db, f, sql, values, bound, versions, plans);
    const own = page.atLeast > f.countLimit ? undefined : listWhere({ ...f, visibility: 'private' });
    const [rows, n] = await Promise.all([loadPage(loader, page), own ? cappedCount(db, f, own.sql, own.values) : 0]);
    return { rows, total: totalOf(page.atLeast + n) };
  }
  if (bound && boundDue(bound, f.countLimit)) {
    const page = await pageIdsWithBound(db, f, sql, values, bound, versions, plans);
    const passes = noteBound(bound, f.countLimit, page.atLeast);
    const [rows, n] = await Promise.all([loadPage(loader, page), passes ? f.countLimit + 1 : cappedCount(db, f, sql, values)]);
    return { rows, total: totalOf(n) };
  }
  const count = f.countLimit <= 0 ? undefined
    : callerProjects && countsCallerProjectsAlone(f) ? callerProjectsCount(db, f, callerProjects, values)
    : cappedCount(db, f, sql, values);
  const [rows, n] = await Promise.all([pageOf(db, f, sql, values, loader, plans), count]);
  return { rows, total: totalOf(n) };
}

/**
 * The count of a listing of the caller's projects alone (countsCallerProjectsAlone), up to the cap + 1: the distinct
 * ids their sources name (memberships, personal namespace, groups, group shares; every id is a project's, by their
 * foreign keys) that are not pending deletion, tested against the few that are (projects_pending_delete_idx, 0020)
 * instead of probing every project.
 */
async function callerProjectsCount(db: Queryable, f: ListFilter, callerProjects: string, values: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(listingStatement(
    `SELECT count(*)::int AS n FROM (
       SELECT DISTINCT c.id FROM (${callerProjects}) AS c (id)
       WHERE NOT EXISTS (SELECT 1 FROM projects d WHERE d.id = c.id AND d.pending_delete)
       LIMIT ${f.countLimit + 1}) s`,
    values,
  ));
  return rows[0]?.n ?? 0;
}

/** GitLab's count, up to the cap + 1: the matches walked until one more than the cap. */
async function cappedCount(db: Queryable, f: ListFilter, where: string, values: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(listingStatement(`SELECT count(*)::int AS n FROM ${firstMatches(where, f.countLimit + 1)}`, values));
  return rows[0]?.n ?? 0;
}

/**
 * Bounds (by visibilities, archived, topic and cap) that were read and did not pass the cap, and when; only an
 * external user's listing takes this path since a signed-in user's is counted as the bound plus their private projects
 * (plusOwnPrivate, above), and the others' bound is their count (exact). On an instance with
 * fewer projects than the cap the bound never helps, and reading it before every walk cost a small instance 8-10%
 * of its broad listings' throughput (one more statement per request: 10,000 projects, c=16, 236/227/191/213 →
 * 189/197/197/196 req/s; read with the page's ids since, it would still hold the walk back until the ids are in).
 * Such a bound is read again after BOUND_RECHECK_MS, and the walk runs beside the page meanwhile, as it did before the
 * counts existed: an instance that grows past the cap is noticed within seconds. Only which path is taken depends on
 * this; the walk and the bound are both exact.
 */
const boundsWithinCap = new Map<string, number>();
const BOUND_RECHECK_MS = 10_000;

const boundKey = (bound: CountLowerBound, cap: number) => `${bound.visibilities.join(',')}|${String(bound.archived)}|${bound.topic ?? ''}|${cap}`;
/** Keys remembered at most: a topic is the caller's text, so the map is emptied rather than grown past this. */
const BOUNDS_WITHIN_CAP_MAX = 1_000;

/** Whether the bound is worth reading: not while a read less than BOUND_RECHECK_MS ago found it within the cap. */
function boundDue(bound: CountLowerBound, cap: number): boolean {
  const checkedAt = boundsWithinCap.get(boundKey(bound, cap));
  return checkedAt === undefined || Date.now() - checkedAt > BOUND_RECHECK_MS;
}

/** Remembers a bound read within the cap (forgets one past it); answers whether it passes the cap. */
function noteBound(bound: CountLowerBound, cap: number, atLeast: number): boolean {
  const key = boundKey(bound, cap);
  const passes = atLeast > cap;
  if (passes) boundsWithinCap.delete(key);
  else {
    if (boundsWithinCap.size >= BOUNDS_WITHIN_CAP_MAX) boundsWithinCap.clear();
    boundsWithinCap.set(key, Date.now());
  }
  return passes;
}

/**
 * The page's ids and the bound in one statement: the projects not pending deletion of the bound's visibilities (and
 * archived state) from project_listing_counts (0017), or of its topic from project_topic_listing_counts (0021), an
 * InitPlan read once, beside the page's ids as an array (one row even for an empty page). Read as a statement of its
 * own, beside the page, the bound cost a round trip: per offset listing ~0.2 ms of projects' CPU and ~0.25 ms of
 * PostgreSQL's (bench/README.md). With `versions`, the page's versions instead of its ids (listing_versions, migration
 * 0022: one row per project in the ids' order, or one row of nulls for an empty page).
 */
async function pageIdsWithBound(
  db: Queryable, f: ListFilter, where: string, values: unknown[], bound: CountLowerBound, versions: boolean, plans: ListingPlans,
): Promise<ReadPage & { atLeast: number }> {
  const page = pageIdsStatement(f, where, values);
  const v = [...page.values, bound.visibilities, bound.archived ?? null];
  const [vis, archived] = [`$${v.length - 1}`, `$${v.length}`];
  const counts = bound.topic === undefined ? 'project_listing_counts c WHERE' : `project_topic_listing_counts c WHERE c.topic = $${v.push(bound.topic)} AND`;
  const atLeast = `(SELECT COALESCE(sum(c.n), 0) FROM ${counts}
             c.visibility = ANY(${vis}::text[]) AND (${archived}::boolean IS NULL OR c.archived = ${archived}))::bigint AS at_least`;
  if (versions) {
    const { rows } = await db.query<{ at_least: number; ord: number | null } & { [K in keyof ProjectVersionRow]: ProjectVersionRow[K] | null }>(listingStatement(
      `SELECT b.at_least, v.* FROM (SELECT ${atLeast}) b LEFT JOIN LATERAL (${VERSIONS_OF(page.text, plans)}) v ON true`,
      v,
    ));
    return { versions: inPageOrder(rows), atLeast: Number(rows[0]?.at_least ?? 0) };
  }
  const { rows } = await db.query<{ ids: (string | number)[]; at_least: number }>(listingStatement(`SELECT ARRAY(${page.text}) AS ids, ${atLeast}`, v));
  return { ids: (rows[0]?.ids ?? []).map(String), atLeast: Number(rows[0]?.at_least ?? 0) };
}

/** The ids of the first `limit` projects matching `where`, in no order, as a subquery `s` (what counts are taken over). */
const firstMatches = (where: string, limit: number) => `(SELECT p.id${LISTING_FROM(where)} WHERE ${where} LIMIT ${limit}) s`;

/**
 * A search reads its matching projects first, up to this many, and orders only those. PostgreSQL estimates how many
 * projects an `ILIKE '%term%'` matches from the few hundred values of its column statistics, a random sample: when one
 * sampled name happens to contain the term, it expects 1% of the projects to match, and walks the ordering index
 * testing every project until it has a page. At 100,000 projects with 80 real matches that walk read 43,471 rows
 * (51.7 ms instead of 0.4 ms through the trigram indexes); it happened after about one ANALYZE in 13 (3 of 40), and
 * the benchmark suite caught it as a member's `search=4242` at 17 req/s. Read first, the matches come from the trigram
 * indexes whatever the estimate (the statement the count ran anyway, returning the ids with the number), and the page
 * is ordered among at most this many ids, each read by primary key. A search matching more is common enough for the
 * ordering index to find a page quickly. The matches and the page are two statements (read committed, as the page's
 * ids and rows): a project changed in between is listed as it matched.
 */
const SEARCH_SET_LIMIT = 10_000;

/**
 * The page's projects: their ids chosen by `where` (SQL over `p`, `n`, `m`; `$1` the caller) in the listing's order, or
 * their versions over those ids (one statement either way).
 */
async function pageOf<T>(db: Queryable, f: ListFilter, where: string, values: unknown[], loader: PageLoader<T>, plans: ListingPlans): Promise<T[]> {
  const page = pageIdsStatement(f, where, values);
  if ('byVersions' in loader) return loadPage(loader, { versions: inPageOrder((await db.query<ProjectVersionRow & { ord: number }>(listingStatement(VERSIONS_OF(page.text, plans), page.values))).rows) });
  const { rows } = await db.query<{ id: string }>(listingStatement(page.text, page.values));
  return loadPage(loader, { ids: rows.map((r) => r.id) });
}

/** The statement choosing the page's ids: `where`, the listing's order, LIMIT and OFFSET (the last two values). */
function pageIdsStatement(f: ListFilter, where: string, values: unknown[]): { text: string; values: unknown[] } {
  const dir = f.sort === 'asc' ? 'ASC' : 'DESC';
  const pageValues = [...values];
  const order = f.orderBy === 'similarity' ? similarityOrder(f.similarityTo ?? '', pageValues)
    : f.orderBy === 'id' || f.orderBy === 'created_at' ? `p.id ${dir}`
    : `${ORDER_COLUMNS[f.orderBy]} ${dir}, p.id ${dir}`;
  pageValues.push(f.perPage, (f.page - 1) * f.perPage);
  // GitLab joins the statistics for their orderings (`apply_filters`: `projects.joins(:statistics)`); every project has a row.
  const statistics = STATISTICS_ORDERINGS.has(f.orderBy) ? ' JOIN project_statistics ps ON ps.project_id = p.id' : '';
  const text = `SELECT p.id${LISTING_FROM(`${where} ${order}`)}${statistics} WHERE ${where} ORDER BY ${order} LIMIT $${pageValues.length - 1} OFFSET $${pageValues.length}`;
  return { text, values: pageValues };
}

/**
 * The projects of these ids as the caller `callerId` sees them (missing ids are absent): one statement for a batch of
 * GetProject reads (GetProjects), the listing's prepared statement.
 */
export async function findProjectsByIds(db: Queryable, callerId: number, ids: readonly (number | string)[]): Promise<ProjectRow[]> {
  return rowsByIds(db, callerId, ids.map(String));
}

/**
 * The projects of these ids, in that order (joined by primary key and kept in the array's order: no sort, no walk of an
 * ordering index), as the caller `callerId` sees them; none asked, no query.
 */
async function rowsByIds(db: Queryable, callerId: number, ids: string[]): Promise<ProjectRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ProjectRow>({
    name: 'project_rows_by_ids',
    text: `${PROJECT_SELECT} JOIN unnest($2::bigint[]) WITH ORDINALITY AS page(id, ord) ON page.id = p.id ORDER BY page.ord`,
    values: [callerId, idsForGenericPlan(ids)],
  });
  return rows;
}

/**
 * PostgreSQL estimates `unnest($2)` at the array's length when it plans for the values (a custom plan) and at 10 rows
 * when it plans once for any value (the generic plan). A prepared statement keeps its generic plan only while that plan
 * does not look costlier than the custom ones, so with fewer than 10 ids (a batch of a few GetProject reads, a page of
 * `per_page=5`) every execution was planned again: the select list costs ~0.8 ms to plan, 1.3-1.6 ms per execution
 * instead of 0.4-0.5 ms (`pg_prepared_statements`: 300 custom plans of 300 for 2, 3 or 5 ids; `projects-store.test.ts`).
 * Padding the array to 10 entries with NULLs (`page.id = p.id` never matches a NULL; btree answers it without reading)
 * makes both estimates equal, and the generic plan is kept after PostgreSQL's five custom trials.
 */
const GENERIC_PLAN_ARRAY_LENGTH = 10;

function idsForGenericPlan(ids: string[]): (string | null)[] {
  if (ids.length >= GENERIC_PLAN_ARRAY_LENGTH) return ids;
  return [...ids, ...Array<null>(GENERIC_PLAN_ARRAY_LENGTH - ids.length).fill(null)];
}

/** The project row locked for an edit (`FOR UPDATE` of the project only), with the caller's membership; `$1` caller id. */
export async function lockProjectForEdit(db: PoolClient, id: number, callerId: number): Promise<ProjectRow | undefined> {
  // Named, as the reads by id: the select list costs ~0.8 ms to plan, and every edit of a project starts here.
  const { rows } = await db.query<ProjectRow>({ name: 'project_by_id_for_update', text: `${PROJECT_SELECT} WHERE p.id = $2 FOR UPDATE OF p`, values: [callerId, id] });
  return rows[0];
}

/** Whether another project of the namespace has this name / path (case-insensitive); `null` is not checked. */
export async function takenByOtherProject(
  db: Queryable, namespaceId: number, projectId: number, name: string | null, path: string | null,
): Promise<{ name: boolean; path: boolean }> {
  const { rows } = await db.query<{ name_taken: boolean; path_taken: boolean }>(
    `SELECT $3::text IS NOT NULL AND EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND id <> $2 AND lower(name) = lower($3)) AS name_taken,
            $4::text IS NOT NULL AND EXISTS (SELECT 1 FROM projects WHERE namespace_id = $1 AND id <> $2 AND lower(path) = lower($4)) AS path_taken`,
    [namespaceId, projectId, name, path],
  );
  return { name: rows[0]!.name_taken, path: rows[0]!.path_taken };
}

/** Writes an edit: only the patched columns (fixed names, bound values), settings merged into the stored ones, updated_at. */
export async function updateProjectAttributes(db: PoolClient, id: number, patch: ProjectPatch): Promise<void> {
  const values: unknown[] = [id];
  const sets = ['updated_at = now()'];
  const set = (column: string, value: unknown, cast = '') => sets.push(`${column} = $${values.push(value)}${cast}`);
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.path !== undefined) set('path', patch.path);
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.visibility !== undefined) set('visibility', patch.visibility);
  if (patch.topics !== undefined) set('topics', patch.topics, '::text[]');
  if (patch.settings !== undefined) {
    const merged = `settings || $${values.push(JSON.stringify(patch.settings))}::jsonb`;
    // A changed container expiration policy is saved now: its next run is one cadence (as it will be) from now.
    sets.push(touchesContainerPolicy(patch.settings)
      ? `settings = ${merged} || jsonb_build_object('containerExpirationPolicyNextRunAt',
          $${values.push(JSON.stringify(containerPolicyNextRunsAt(new Date())))}::jsonb ->> COALESCE((${merged}) ->> 'containerExpirationPolicyCadence', '1d'))`
      : `settings = ${merged}`);
  }
  await db.query(`UPDATE projects SET ${sets.join(', ')} WHERE id = $1`, values);
}

/** Moves a project to another namespace (transfer), with the visibility it keeps there. */
export async function moveProject(db: PoolClient, id: number, namespaceId: number, visibility: string): Promise<void> {
  await db.query('UPDATE projects SET namespace_id = $2, visibility = $3, updated_at = now() WHERE id = $1', [id, namespaceId, visibility]);
}

/** Projects in the user's personal namespace (GitLab's `personal_projects_count`). */
export async function countPersonalProjects(db: Queryable, userId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM projects p WHERE p.namespace_id = ANY(ARRAY(SELECT n.id FROM namespaces n WHERE n.owner_id = $1 AND n.kind = 'user'))`,
    [userId],
  );
  return rows[0]!.n;
}

/** What repo-admin reports of a project's repository: empty or not, its default branch, when refs last moved. */
export async function applyRepositoryState(
  db: PoolClient, r: { projectId: number; empty: boolean; defaultBranch: string; pushedAt?: Date },
): Promise<void> {
  await db.query(
    `UPDATE projects SET empty_repo = $2, default_branch = COALESCE(NULLIF($3, ''), default_branch),
            last_activity_at = GREATEST(last_activity_at, COALESCE($4, last_activity_at))
     WHERE id = $1`,
    [r.projectId, r.empty, r.defaultBranch, r.pushedAt ?? null],
  );
}
