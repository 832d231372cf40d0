import { invalid, type Actor } from '@glp/service-kit';
import { personalProjectLimitError } from '../domain/project-limit-rules';
import { countPersonalProjects } from '../store/projects-store';
import type { IdentityClient, ProjectsDeps } from './deps';

/**
 * Refuses a new project in a personal namespace when its creator has no personal projects left (their projects_limit,
 * read from identity as themselves, against the projects in their own namespace): `invalid({ limit_reached })`, which
 * each route words as GitLab does. Group namespaces are not limited.
 */
export async function checkPersonalProjectLimit(
  deps: { pool: ProjectsDeps['pool']; identity: Pick<IdentityClient, 'getUser'> }, creator: Actor, namespace: { kind: string },
): Promise<void> {
  if (namespace.kind !== 'user' || creator.kind !== 'user') return;
  const [{ user }, count] = await Promise.all([
    deps.identity.getUser({ selector: { $case: 'id', value: creator.id } }, { actor: creator }),
    countPersonalProjects(deps.pool, creator.id),
  ]);
  const error = personalProjectLimitError(user?.projectsLimit ?? 0, count);
  if (error) throw invalid({ limit_reached: [error] });
}
