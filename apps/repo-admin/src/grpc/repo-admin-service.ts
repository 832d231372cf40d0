import { repoAdminV1 } from '@glp/proto';
import { notFound, type AsyncService } from '@glp/service-kit';
import { startHousekeeping } from '../app/housekeeping';
import { listCommits } from '../app/list-commits';
import { repositoryLanguages } from '../app/languages';
import { refreshStatistics } from '../app/statistics';
import type { UnaryMethods } from './server-stream';
import type { RepoAdminDeps } from '../app/deps';
import { findRepository } from '../store/repositories-store';
import { validateRemote } from '../app/validate-remote';
import { uploadsService } from './uploads-service';
import { mirrorService } from './mirror-service';

/** gRPC adapter of repo-admin: its unary methods (the streaming ones are bound in grpc/implementation.ts). */
export function repoAdminService(deps: RepoAdminDeps): AsyncService<UnaryMethods<repoAdminV1.RepoAdminServiceServer>> {
  return {
    // Uploads and avatars: list, delete, prune (grpc/uploads-service.ts).
    ...uploadsService(deps),
    // Pull mirrors: update now, state (grpc/mirror-service.ts).
    ...mirrorService(deps),

    async getLanguages(req, ctx) {
      const languages = await repositoryLanguages(deps, ctx.actor, req.project);
      return { languages };
    },

    async startHousekeeping(req, ctx) {
      return { jobId: await startHousekeeping(deps, ctx.actor, req.project, req.task) };
    },

    async refreshStatistics(req, ctx) {
      await refreshStatistics(deps, ctx.actor, req.project);
      return {};
    },

    async validateRemote(req) {
      await validateRemote(deps, req.url);
      return {};
    },

    async listCommits(req, ctx) {
      return listCommits(deps, ctx.actor, { projectId: req.projectId, ref: req.ref, limit: req.limit });
    },

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
