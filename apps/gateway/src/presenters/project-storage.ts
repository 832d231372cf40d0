import { createHash } from 'node:crypto';
import type { projectsV1, repoAdminV1 } from '@glp/proto';

const iso = (d?: Date) => (d ? d.toISOString() : null);

/** GitLab's `Storage::Hashed#disk_path`: `@hashed/<h[0..2]>/<h[2..4]>/<h>` with h the SHA-256 of the project id. */
const hashedDiskPath = (projectId: number) => {
  const h = createHash('sha256').update(String(projectId)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}`;
};

/**
 * GitLab's `Entities::ProjectRepositoryStorage` (`lib/api/entities/project_repository_storage.rb`), ONE object in its
 * order: `disk_path` (the repository's path on its storage, without `.git`), `project_id`, `repository_storage`,
 * `created_at` (the project's). The path is repo-admin's record when the repository exists; until it does (its create job
 * still queued) GitLab's hashed path of the id, which is where it will be.
 */
export function projectStorageEntity(project: projectsV1.Project, repository: repoAdminV1.Repository | undefined) {
  return {
    disk_path: repository?.diskPath ? repository.diskPath.replace(/\.git$/, '') : hashedDiskPath(project.id),
    project_id: project.id,
    repository_storage: project.repositoryStorage || repository?.storage || 'default',
    created_at: iso(project.createdAt),
  };
}
