import type { projectsV1, repoAdminV1 } from '@glp/proto';
import { withCredentials } from '@glp/url-guard';
import { HttpError } from '../http/errors';
import { defineParams, p } from '../http/params';
import { route, type RouteContext, type RouteDef } from '../http/route';
import { pullMirrorEntity } from '../presenters/pull-mirror';
import { requireProject } from './project-member-routes';

const MAINTAINER = 40;

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

/** How the mirror's updates went (repo-admin); undefined while none has been recorded. */
async function mirrorState(ctx: Pick<RouteContext<unknown>, 'services'>, projectId: number): Promise<repoAdminV1.PullMirrorState | undefined> {
  const { state } = await ctx.services.repoAdmin.getPullMirror({ project: { selector: { $case: 'id', value: projectId } } })
    .catch((err: unknown) => {
      // Configured but its first update has not been recorded yet (or not mirrored): nothing has run.
      if ((err as { kind?: unknown })?.kind === 'not_found') return { state: undefined };
      throw err;
    });
  return state;
}

/**
 * GitLab's `Import::ValidateRemoteGitEndpointService` on a pull mirror's new URL (with the credentials sent), after the
 * model's URL rules: both are the model's `import_url` errors here, 400 `{"message":{"import_url":[…]}}`. repo-admin
 * refuses a URL the outbound rules block as REJECTED, and one that does not answer as a git repository as BAD_REQUEST.
 */
async function probeMirrorUrl(ctx: Pick<RouteContext<unknown>, 'services'>, url: string): Promise<void> {
  await ctx.services.repoAdmin.validateRemote({ url }).catch((err: unknown) => {
    const e = err as { kind?: unknown; message?: unknown };
    if (e?.kind === 'rejected') throw new HttpError(400, { message: { import_url: [`is blocked: ${String(e.message)}`] } });
    if (e?.kind === 'bad_request') throw new HttpError(400, { message: { import_url: [String(e.message)] } });
    throw err;
  });
}

const idParam = defineParams({ id: p.string().required() });

const pullMirrorParams = defineParams({
  id: p.string().required(),
  enabled: p.boolean(),
  url: p.string(),
  auth_user: p.string(),
  auth_password: p.string(),
  mirror_trigger_builds: p.boolean(),
  only_mirror_protected_branches: p.boolean(),
  mirror_overwrites_diverged_branches: p.boolean(),
  mirror_branch_regex: p.string(),
}).atLeastOneOf(
  'enabled', 'url', 'auth_user', 'auth_password', 'mirror_overwrites_diverged_branches', 'mirror_trigger_builds',
  'only_mirror_protected_branches', 'mirror_branch_regex',
);

/** Pull mirroring (`ee/lib/api/project_mirror.rb`): configure it, start an update now, and read how the updates went. */
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
      return { body: pullMirrorEntity(project, await mirrorState(ctx, project.id)) };
    },
  }),

  /**
   * PUT /projects/:id/mirror/pull: the same import source and mirror configuration as `import_url`/`mirror` on create
   * and edit (projects' UpdatePullMirror); a new URL is probed first (with the credentials sent); a mirror starts an
   * update at once (GitLab's `force_import_job!`); 200 with the PullMirror entity, credentials masked.
   */
  route({
    method: 'PUT', path: '/projects/:id/mirror/pull', access: 'user', params: pullMirrorParams,
    handler: async (ctx) => {
      const { params } = ctx;
      const selector = requireProject(params.id).selector;
      if (params.url && params.enabled !== false) {
        // Who may not administer the project learns nothing about the URL: access first.
        const { project: seen } = await ctx.services.projects.getProject({ selector, withCustomAttributes: false, statistics: false });
        if (!ctx.actor.admin && (seen?.callerAccessLevel ?? 0) < MAINTAINER) throw HttpError.forbidden();
        await probeMirrorUrl(ctx, withCredentials(params.url, { user: params.auth_user ?? undefined, password: params.auth_password ?? undefined }));
      }
      const { project } = await ctx.services.projects.updatePullMirror({
        project: { selector },
        enabled: params.enabled ?? undefined,
        url: params.url ?? undefined,
        authUser: params.auth_user ?? undefined,
        authPassword: params.auth_password ?? undefined,
        settings: {
          mirrorTriggerBuilds: params.mirror_trigger_builds ?? undefined,
          onlyMirrorProtectedBranches: params.only_mirror_protected_branches ?? undefined,
          mirrorOverwritesDivergedBranches: params.mirror_overwrites_diverged_branches ?? undefined,
          mirrorBranchRegex: params.mirror_branch_regex ?? undefined,
        },
      });
      if (project!.mirror?.mirror) await ctx.services.repoAdmin.startMirrorUpdate({ project: { selector: { $case: 'id', value: project!.id } } });
      return { body: pullMirrorEntity(project!, await mirrorState(ctx, project!.id)) };
    },
  }),
];
