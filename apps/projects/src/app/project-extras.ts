import type { Actor } from '@glp/service-kit';
import { shareAccess } from '../domain/sharing-rules';
import { mayReadStatistics } from '../domain/statistics-rules';
import { effectiveAccess } from '../domain/visibility';
import type { ProjectRow } from '../store/project-rows';
import { statisticsOf, type StatisticsRow } from '../store/statistics-store';
import type { ProjectsDeps } from './deps';
import { accessFacts, shareLinksOf } from './read-project';

/** What a project answer carries besides the row: statistics (asked and allowed). */
export interface ProjectExtras {
  statistics?: StatisticsRow;
}

/** The extras of a single-project answer: when `statistics` was asked, the statistics for Reporters and above (one query by primary key). */
export async function singleProjectExtras(
  deps: ProjectsDeps, actor: Actor, project: { row: ProjectRow; access: number }, statistics = false,
): Promise<ProjectExtras> {
  const shown = statistics && mayReadStatistics(actor, project.access)
    ? (await statisticsOf(deps.pool, [project.row.id])).get(project.row.id)
    : undefined;
  return { statistics: shown };
}

/**
 * A listing page's statistics, when asked: of the projects where the caller is Reporter or above (or of all, for
 * administrators), in ONE query for the page.
 */
export async function listingStatistics(
  deps: ProjectsDeps, actor: Actor, asked: boolean, rows: ProjectRow[], groupAccess: ReadonlyMap<number, number>,
): Promise<Map<number, StatisticsRow>> {
  if (!asked) return new Map();
  const ids = rows
    .filter((r) => mayReadStatistics(actor, effectiveAccess(actor, accessFacts(r, groupAccess.get(r.namespace_id) ?? 0, shareAccess(shareLinksOf(r), groupAccess)))))
    .map((r) => r.id);
  return statisticsOf(deps.pool, ids);
}
