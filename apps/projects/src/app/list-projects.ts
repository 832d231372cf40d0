import type { projectsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import { anonymousMatchesNothing, parseSearch, programmingLanguageMatchesNothing, readScopeOf, repositoryStorageFilter, resolveOrdering } from '../domain/list-filter';
import { customAttributesFilter } from '../domain/custom-attribute-rules';
import type { CustomAttributeRow } from '../store/custom-attributes-store';
import { shownCustomAttributes } from './custom-attributes';
import { normalizeTopics } from '../domain/new-project';
import { listProjects as listProjectRows } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import { visibilityFromProto } from '../grpc/mappers';
import type { ProjectsDeps } from './deps';
import { groupAccessOf } from './group-access';
import { callerId } from './read-project';
import { listingStatistics } from './project-extras';
import type { StatisticsRow } from '../store/statistics-store';


/**
 * GET /projects (and the user listings: `namespace_id` = the user's namespace, `starred_by_user_id`) for the caller:
 * what they may read, with their access through project membership, personal namespace, group namespaces and groups
 * the projects are shared with (one identity call for every group of the caller, signed-in non-administrators only;
 * one SQL page + one count; no count when `skip_count`, keyset).
 */
export async function listProjects(
  deps: ProjectsDeps,
  actor: Actor,
  req: projectsV1.ListProjectsRequest,
): Promise<{
  rows: ProjectRow[]; groupAccess: ReadonlyMap<number, number>; total: number; customAttributes?: Map<number, CustomAttributeRow[]>;
  /** Asked (`statistics`) and allowed (Reporter+ per project, administrators): one query for the page. */
  statistics: Map<number, StatisticsRow>;
}> {
  const signedIn = actor.kind === 'user';
  const groupAccess = await groupAccessOf(deps, actor, []);
  const ordering = resolveOrdering(req.orderBy, req.search, signedIn, actor.admin);
  const starredBy = [...(req.starred && signedIn ? [callerId(actor)] : []), ...(req.starredByUserId ? [req.starredByUserId] : [])];
  const { rows, total } = await listProjectRows(deps.pool, {
    callerId: callerId(actor),
    readScope: readScopeOf(actor),
    groupAccess: [...groupAccess].map(([namespaceId, level]) => ({ namespaceId, level })),
    owned: req.owned && signedIn,
    membership: (req.membership || ordering.membership) && signedIn,
    namespaceId: req.namespaceId || undefined,
    minAccessLevel: signedIn ? req.minAccessLevel : undefined,
    visibility: visibilityFromProto(req.visibility),
    archived: req.archived,
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
    none: programmingLanguageMatchesNothing(req.withProgrammingLanguage) || anonymousMatchesNothing(signedIn, req),
    repositoryStorage: repositoryStorageFilter(req.repositoryStorage, actor.admin),
    customAttributes: customAttributesFilter(actor, req.customAttributes),
    similarityTo: req.search,
    orderBy: ordering.orderBy,
    sort: req.sort === 'asc' ? 'asc' : 'desc',
    page: Math.max(1, req.page || 1),
    perPage: Math.min(100, Math.max(1, req.perPage || 20)),
    countLimit: req.skipCount ? 0 : deps.countLimit,
    sharedWithGroupId: req.sharedWithGroupId || undefined,
    forkedFromProjectId: req.forkedFromProjectId || undefined,
  });
  const [customAttributes, statistics] = await Promise.all([
    shownCustomAttributes(deps, actor, req.withCustomAttributes, rows.map((r) => r.id)), listingStatistics(deps, actor, req.statistics, rows, groupAccess),
  ]);
  return { rows, groupAccess, total, customAttributes, statistics };
}
