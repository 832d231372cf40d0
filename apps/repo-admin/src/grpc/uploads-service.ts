import type { repoAdminV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { pruneAvatars } from '../app/avatars';
import type { RepoAdminDeps } from '../app/deps';
import { deleteUpload, listUploads } from '../app/uploads';

/** gRPC adapter of the unary upload and avatar methods (the streaming ones: upload-streams.ts). */
export function uploadsService(deps: RepoAdminDeps): Pick<AsyncService<repoAdminV1.RepoAdminServiceServer>, 'listUploads' | 'deleteUpload' | 'pruneAvatars'> {
  return {
    async listUploads(req, ctx) {
      return listUploads(deps, ctx.actor, req);
    },
    async deleteUpload(req, ctx) {
      await deleteUpload(deps, ctx.actor, req);
      return {};
    },
    async pruneAvatars(req, ctx) {
      await pruneAvatars(deps, ctx.actor, req.project);
      return {};
    },
  };
}
