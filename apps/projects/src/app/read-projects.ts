import type { Actor } from '@glp/service-kit';
import type { projectsV1 } from '@glp/proto';
import { findProjectsByIds } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import type { ProjectsDeps } from './deps';
import { callerId, readableProject, readableRow, type ReadableProject } from './read-project';

/** One GetProject read of a batch: its caller and its selector. */
export interface ProjectRead {
  actor: Actor;
  selector: projectsV1.GetProjectRequest['selector'];
}

/** The rows a batch's by-id reads need, by caller id and project id. */
export type PrefetchedRows = Map<number, Map<number, ProjectRow>>;

/**
 * The rows of a batch's by-id reads (GetProjects), in ONE statement per distinct caller (a row carries the caller's
 * membership) instead of one per read: the rows of a project the caller reads are the same as GetProject's.
 */
export async function prefetchRowsById(deps: ProjectsDeps, reads: ProjectRead[]): Promise<PrefetchedRows> {
  const idsByCaller = new Map<number, Set<number>>();
  for (const r of reads) {
    if (r.selector?.$case !== 'id') continue;
    const caller = callerId(r.actor);
    const ids = idsByCaller.get(caller) ?? new Set<number>();
    ids.add(r.selector.value);
    idsByCaller.set(caller, ids);
  }
  const out: PrefetchedRows = new Map();
  await Promise.all([...idsByCaller].map(async ([caller, ids]) => {
    const rows = await findProjectsByIds(deps.pool, caller, [...ids]);
    out.set(caller, new Map(rows.map((row) => [row.id, row])));
  }));
  return out;
}

/** readableProject of one read of a batch: from the prefetched rows when it names an id, as GetProject otherwise. */
export function readableFromBatch(deps: ProjectsDeps, read: ProjectRead, rows: PrefetchedRows): Promise<ReadableProject> {
  if (read.selector?.$case !== 'id') return readableProject(deps, read.actor, read.selector);
  return readableRow(deps, read.actor, read.selector, rows.get(callerId(read.actor))?.get(read.selector.value));
}
