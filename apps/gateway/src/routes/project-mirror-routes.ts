import type { projectsV1 } from '@glp/proto';
import { HttpError } from '../http/errors';
import { defineParams, p } from '../http/params';
import { route, type RouteContext, type RouteDef } from '../http/route';
import { requireProject } from './project-member-routes';

const MAINTAINER = 40;
const iso = (d?: Date) => (d ? d.toISOString() : null);

/**
 * A pull-mirrored project the caller administers (GitLab's `authorize_admin_project`): hidden → 404, below Maintainer →
 * 403, not a pull mirror → 400 `{"message":"The project is not mirrored"}` (`ee/lib/api/project_mirror.rb`).
 */
async function mirroredProject(ctx: Pick<RouteContext<unknown>, 'services' | 'actor'>, id: string | null | undefined): Promise<projectsV1.Project> {
  const { project } = await ctx.services.projects.getProject({ selector: requireProject(id).selector, withCustomAttributes: false, statistics: false });
  if (!ctx.actor.admin && (project?.callerAccessLevel ?? 0) < MAINTAINER) throw HttpError.forbidden();
  if (!project?.mirror?.mirror) throw new HttpError(400, { message: 'The project is not mirrored' });
  return project;
}

const idParam = defineParams({ id: p.string().required() });

/** Pull mirroring (`ee/lib/api/project_mirror.rb`): start an update now, and read how the updates went. */
export const projectMirrorRoutes: RouteDef[] = [
  route({
    method: 'POST', path: '/projects/:id/mirror/pull', access: 'user', params: idParam,
    handler: async (ctx) => {
      const project = await mirroredProject(ctx, ctx.params.id);
      await ctx.services.repoAdmin.startMirrorUpdate({ project: { selector: { $case: 'id', value: project.id } } });
      return { status: 200 }; // GitLab: `status 200`, no meaningful body
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/mirror/pull', access: 'user', params: idParam,
    handler: async (ctx) => {
      const project = await mirroredProject(ctx, ctx.params.id);
      const { state } = await ctx.services.repoAdmin.getPullMirror({ project: { selector: { $case: 'id', value: project.id } } })
        .catch((err: unknown) => {
          // Configured but its first update has not been recorded yet: nothing has run.
          if ((err as { kind?: unknown })?.kind === 'not_found') return { state: undefined };
          throw err;
        });
      const m = project.mirror!;
      // GitLab's PullMirror entity (`ee/lib/api/entities/pull_mirror.rb`).
      return {
        body: {
          id: project.id,
          update_status: state?.updateStatus || 'none',
          url: project.importUrl || null,
          last_error: state?.lastError || null,
          last_update_at: iso(state?.lastUpdateAt),
          last_update_started_at: iso(state?.lastUpdateStartedAt),
          last_successful_update_at: iso(state?.lastSuccessfulUpdateAt),
          enabled: m.mirror ?? false,
          mirror_trigger_builds: m.mirrorTriggerBuilds ?? false,
          only_mirror_protected_branches: m.onlyMirrorProtectedBranches ?? false,
          mirror_overwrites_diverged_branches: m.mirrorOverwritesDivergedBranches ?? false,
          mirror_branch_regex: m.mirrorBranchRegex || null,
        },
      };
    },
  }),
];
