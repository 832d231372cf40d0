import type { repoAdminV1 } from '@glp/proto';
import { forbidden, type Actor } from '@glp/service-kit';
import type { Readable } from 'node:stream';
import { snapshotTar } from '../disk/snapshot-tar';
import { mayReadAllResources } from '../domain/repository-access';
import type { RepoAdminDeps } from './deps';
import { projectAsSeenBy } from './project-access';
import { projectRepository } from './project-repository';

/**
 * GET /projects/:id/snapshot (`lib/api/project_snapshots.rb`): administrators only, checked before the project is looked
 * up (`authenticated_with_can_read_all_resources!` runs in a `before` block), then the project (404), then the tar of its
 * repository or, with `wiki`, of its wiki's. A project's repository still being created (a project created a moment
 * before; GitLab creates it before answering POST /projects) is waited for, as clones and pushes wait; an empty one is a
 * tar like any other. Undefined when that repository is not on disk (a wiki never written, a repository that did not
 * appear in time): Gitaly's NOT_FOUND reaches Workhorse only after it sent 200 and the headers, so GitLab answers an
 * empty body (`internal/git/snapshot.go`).
 */
export async function openSnapshot(
  deps: Pick<RepoAdminDeps, 'projects' | 'git' | 'storageRoot' | 'repositoryWaitMs'>, actor: Actor, ref: repoAdminV1.ProjectRef | undefined, wiki: boolean,
): Promise<Readable | undefined> {
  if (!mayReadAllResources(actor)) throw forbidden();
  const project = await projectAsSeenBy(deps, actor, ref);
  const repo = projectRepository(deps, project.id, wiki);
  // A wiki is created by its first write, never by ProjectCreated: nothing to wait for.
  if (!(await repo.existsWithin(wiki ? 0 : deps.repositoryWaitMs ?? 0))) return undefined;
  return snapshotTar(repo.dir) as unknown as Readable;
}
