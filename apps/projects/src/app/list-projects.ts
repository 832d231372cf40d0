import type { projectsV1 } from '@glp/proto';
import { invalid, type Actor } from '@glp/service-kit';
import {
  activityOf, anonymousMatchesNothing, checksumFailuresMatchNothing, isCalendarDate, parseSearch, plansAlikeForAnyValues, programmingLanguageMatchesNothing, readScopeOf, repositoryStorageFilter, resolveOrdering, type ListFilter,
} from '../domain/list-filter';
import { customAttributesFilter } from '../domain/custom-attribute-rules';
import type { CustomAttributeRow } from '../store/custom-attributes-store';
import { shownCustomAttributes } from './custom-attributes';
import { normalizeTopics } from '../domain/new-project';
import { findProjectsByIds, listProjectPage, type PageLoader } from '../store/projects-store';
import type { ProjectRow, ProjectVersionRow } from '../store/project-rows';
import { visibilityFromProto } from '../grpc/mappers';
import type { ProjectsDeps } from './deps';
import { groupAccessOf } from './group-access';
import { callerId } from './read-project';
import { listingStatistics } from './project-extras';
import type { StatisticsRow } from '../store/statistics-store';


/** A listed project: its row, or an answer kept for its versions (`kept`), for which its row was not read. */
export type ListedProject<K> = { row: ProjectRow; kept?: undefined } | { row?: undefined; kept: K };

/**
 * The answer kept for a project of these versions, as the caller sees it with this level in its (group) namespace, if
 * any. Asked only of projects whose answer reads no other row (`self_contained`: no share link, so no share level).
 */
export type KeptAnswer<K> = (version: ProjectVersionRow, namespaceGroupAccess: number) => K | undefined;

/**
 * GET /projects (and the user listings: `namespace_id` = the user's namespace, `starred_by_user_id`) for the caller:
 * what they may read, with their access through project membership, personal namespace, group namespaces and groups
 * the projects are shared with (one identity call for every group of the caller, signed-in non-administrators only;
 * one SQL page + one count; no count when `skip_count`, keyset).
 *
 * With `keptAnswer` (and neither statistics nor custom attributes asked), the page's projects are read as versions by
 * the statement choosing the page, and only those without a kept answer as rows: a page seen before costs that one
 * statement instead of two and the rows' select list, their parsing and their mapping.
 */
export async function listProjects<K = never>(
  deps: ProjectsDeps,
  actor: Actor,
  req: projectsV1.ListProjectsRequest,
  keptAnswer?: KeptAnswer<K>,
): Promise<{
  page: ListedProject<K>[]; groupAccess: ReadonlyMap<number, number>; total: number; customAttributes?: Map<number, CustomAttributeRow[]>;
  /** Without a count (`skip_count`, keyset): whether a project follows the page (GitLab's keyset pager reads one more row). */
  more: boolean;
  /** Asked (`statistics`) and allowed (Reporter+ per project, administrators): one query for the page. */
  statistics: Map<number, StatisticsRow>;
}> {
  const signedIn = actor.kind === 'user';
  const perPage = Math.min(100, Math.max(1, req.perPage || 20));
  const lookAhead = req.skipCount && (req.page || 1) === 1;
  const groupAccess = await groupAccessOf(deps, actor, []);
  const ordering = resolveOrdering(req.orderBy, req.search, signedIn, actor.admin);
  const starredBy = [...(req.starred && signedIn ? [callerId(actor)] : []), ...(req.starredByUserId ? [req.starredByUserId] : [])];
  const loader: PageLoader<ListedProject<K>> = keptAnswer && !req.statistics && !req.withCustomAttributes
    ? { byVersions: (versions) => keptOrRead(deps, actor, versions, (v) => keptAnswer(v, groupAccess.get(v.namespace_id) ?? 0)) }
    : { byIds: async (ids) => (await findProjectsByIds(deps.pool, callerId(actor), ids)).map((row) => ({ row })) };
  const filter: ListFilter = {
    callerId: callerId(actor),
    readScope: readScopeOf(actor),
    groupAccess: [...groupAccess].map(([namespaceId, level]) => ({ namespaceId, level })),
    owned: req.owned && signedIn,
    membership: (req.membership || ordering.membership) && signedIn,
    namespaceId: req.namespaceId || undefined,
    minAccessLevel: signedIn ? req.minAccessLevel : undefined,
    visibility: visibilityFromProto(req.visibility),
    archived: req.archived,
    activity: activityOf(req.active),
    markedForDeletionOn: markedOnFilter(req.markedForDeletionOn),
    idAfter: req.idAfter || undefined,
    idBefore: req.idBefore || undefined,
    topics: normalizeTopics(req.topics),
    search: parseSearch(req.search),
    searchNamespaces: req.searchNamespaces,
    starredBy,
    lastActivityAfter: req.lastActivityAfter,
    lastActivityBefore: req.lastActivityBefore,
    issuesAvailable: req.withIssuesEnabled,
    mergeRequestsAvailable: req.withMergeRequestsEnabled,
    none: programmingLanguageMatchesNothing(req.withProgrammingLanguage) || anonymousMatchesNothing(signedIn, req) || checksumFailuresMatchNothing(req),
    repositoryStorage: repositoryStorageFilter(req.repositoryStorage, actor.admin),
    customAttributes: customAttributesFilter(actor, req.customAttributes),
    similarityTo: req.search,
    orderBy: ordering.orderBy,
    sort: req.sort === 'asc' ? 'asc' : 'desc',
    page: Math.max(1, req.page || 1),
    perPage: perPage + (lookAhead ? 1 : 0),
    countLimit: req.skipCount ? 0 : deps.countLimit,
    sharedWithGroupId: req.sharedWithGroupId || undefined,
    forkedFromProjectId: req.forkedFromProjectId || undefined,
  };
  // A listing whose plan no value changes reads with the connections that keep generic plans (DB_GENERIC_PLAN_POOL_MAX).
  const genericPlans = deps.genericPlanPool && plansAlikeForAnyValues(filter) ? deps.genericPlanPool : undefined;
  const { rows: read, total } = await listProjectPage(genericPlans ?? deps.pool, filter, loader, { plannedOnce: genericPlans !== undefined });
  const more = lookAhead && read.length > perPage;
  const page = more ? read.slice(0, perPage) : read;
  const rows = page.flatMap((p) => (p.row ? [p.row] : []));
  const [customAttributes, statistics] = await Promise.all([
    shownCustomAttributes(deps, actor, req.withCustomAttributes, rows.map((r) => r.id)), listingStatistics(deps, actor, req.statistics, rows, groupAccess),
  ]);
  return { page, groupAccess, total, customAttributes, statistics, more };
}

/**
 * The page's projects in order, from their versions (read with the page: listProjectPage): a kept answer where `kept`
 * has one for their versions, else their rows (one statement).
 */
async function keptOrRead<K>(deps: ProjectsDeps, actor: Actor, versions: ProjectVersionRow[], kept: (v: ProjectVersionRow) => K | undefined): Promise<ListedProject<K>[]> {
  const answers = versions.map((v) => (v.self_contained ? kept(v) : undefined));
  const unread = versions.filter((_, i) => answers[i] === undefined).map((v) => v.id);
  const rows = new Map((unread.length ? await findProjectsByIds(deps.pool, callerId(actor), unread) : []).map((r) => [r.id, r]));
  return versions.flatMap((v, i): ListedProject<K>[] => {
    const answer = answers[i];
    if (answer !== undefined) return [{ kept: answer }];
    const row = rows.get(v.id);
    return row ? [{ row }] : [];
  });
}

/** `marked_for_deletion_on` (Grape `type: Date`): a calendar day, or 400 before any SQL. */
function markedOnFilter(value: string): string | undefined {
  if (!value) return undefined;
  if (!isCalendarDate(value)) throw invalid({ marked_for_deletion_on: ['is invalid'] });
  return value;
}
