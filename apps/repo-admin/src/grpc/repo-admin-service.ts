import { repoAdminV1 } from '@glp/proto';
import { notFound, type AsyncService } from '@glp/service-kit';
import type { RepoAdminDeps } from '../app/deps';
import { findRepository } from '../store/repositories-store';

/** gRPC adapter of repo-admin. */
export function repoAdminService(deps: RepoAdminDeps): AsyncService<repoAdminV1.RepoAdminServiceServer> {
  return {
    async getRepository(req) {
      const r = await findRepository(deps.pool, req.projectId);
      if (!r) throw notFound('Repository');
      return {
        repository: repoAdminV1.Repository.fromPartial({
          projectId: r.project_id, storage: r.storage, diskPath: r.disk_path, createdAt: r.created_at, empty: r.empty, defaultBranch: r.default_branch ?? '',
        }),
      };
    },
  };
}
