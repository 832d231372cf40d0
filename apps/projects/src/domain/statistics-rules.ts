import type { Actor } from '@glp/service-kit';
import { ACCESS } from './visibility';

/**
 * GitLab's `read_statistics` (ProjectPolicy: Reporter and above; administrators): who is shown a project's
 * `statistics` when they ask for them (`lib/api/entities/project.rb`: `expose :statistics, if: options[:statistics] &&
 * Ability.allowed?(current_user, :read_statistics, project)`). Anyone else gets no field at all, silently.
 */
export function mayReadStatistics(actor: Actor, access: number): boolean {
  return actor.kind === 'user' && (actor.admin || access >= ACCESS.REPORTER);
}

/** The sizes repo-admin measured for a project, as project_statistics keeps them. */
export interface MeasuredSizes {
  commitCount: number;
  repositorySize: number;
  wikiSize: number;
  lfsObjectsSize: number;
  uploadsSize: number;
}

/**
 * A measurement as it is stored: counts and sizes are never negative (a negative value from a faulty producer is 0, not
 * a failing event that would block the partition) and whole numbers within bigint.
 */
export function storedSizes(m: MeasuredSizes): MeasuredSizes {
  const clean = (n: number) => (Number.isFinite(n) && n > 0 ? Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER) : 0);
  return {
    commitCount: clean(m.commitCount), repositorySize: clean(m.repositorySize), wikiSize: clean(m.wikiSize),
    lfsObjectsSize: clean(m.lfsObjectsSize), uploadsSize: clean(m.uploadsSize),
  };
}
