import type { repoAdminV1 } from '@glp/proto';
import { forbidden, type Actor, type AsyncService } from '@glp/service-kit';
import type { RepoAdminDeps } from '../app/deps';
import { projectAsSeenBy } from '../app/project-access';
import { mirrorState, startMirrorUpdate } from '../app/pull-mirror';
import type { UnaryMethods } from './server-stream';

const MAINTAINER = 40;

/** The project the caller administers (GitLab's `admin_project`: Maintainer+, administrators), asked of projects. */
async function administered(deps: RepoAdminDeps, actor: Actor, ref: repoAdminV1.ProjectRef | undefined): Promise<number> {
  const seen = await projectAsSeenBy(deps, actor, ref);
  if (!actor.admin && seen.accessLevel < MAINTAINER) throw forbidden();
  return seen.id;
}

/** gRPC adapter of pull mirrors. */
export function mirrorService(deps: RepoAdminDeps): Pick<AsyncService<UnaryMethods<repoAdminV1.RepoAdminServiceServer>>, 'startMirrorUpdate' | 'getPullMirror'> {
  return {
    async startMirrorUpdate(req, ctx) {
      await startMirrorUpdate(deps, await administered(deps, ctx.actor, req.project));
      return {};
    },
    async getPullMirror(req, ctx) {
      const m = await mirrorState(deps, await administered(deps, ctx.actor, req.project));
      return {
        state: {
          projectId: m.project_id, enabled: m.enabled, updateStatus: m.update_status, lastUpdateStartedAt: m.last_update_started_at ?? undefined,
          lastUpdateAt: m.last_update_at ?? undefined, lastSuccessfulUpdateAt: m.last_successful_update_at ?? undefined, lastError: m.last_error ?? '',
        },
      };
    },
  };
}
