import { projectsV1 } from '@glp/proto';
import { HttpError } from '../http/errors';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectEntity } from '../presenters/project';
import { requireProject } from './project-member-routes';
import { keysetCursorOnly, listProjectsPage, projectListingParamFields, visibilityToProto } from './project-routes';

/**
 * Forks (`lib/api/projects.rb`): POST /projects/:id/fork answers at once with the new project (import_status
 * "scheduled" until repo-admin has copied the repository); POST /projects/:id/fork/:forked_from_id and
 * DELETE /projects/:id/fork link and unlink an existing project (Owners); GET /projects/:id/forks lists the direct forks
 * the caller may read, with the listing filters.
 */

const forkParams = defineParams({
  id: p.string().required(),
  name: p.string(),
  path: p.string(),
  description: p.string(),
  visibility: p.enumOf(['private', 'internal', 'public']),
  namespace_id: p.integer(),
  namespace_path: p.string(),
  /** Deprecated: an id or a full path. */
  namespace: p.string(),
  mr_default_target_self: p.boolean(),
  branches: p.string(),
});

/** The spec drops id_after, id_before and with_programming_language from the forks listing (ignored when sent). */
const { with_programming_language: _language, ...forkListingFields } = projectListingParamFields;
const listForksParams = defineParams({ id: p.string().required(), ...forkListingFields });

/** GitLab's precedence: namespace_id, then namespace_path, then the deprecated namespace (digits: an id). */
function forkNamespace(params: { namespace_id?: number | null; namespace_path?: string | null; namespace?: string | null }): projectsV1.ForkProjectRequest['namespace'] {
  if (params.namespace_id != null) return { $case: 'namespaceId', value: params.namespace_id };
  if (params.namespace_path) return { $case: 'namespacePath', value: params.namespace_path };
  if (params.namespace) {
    return /^\d+$/.test(params.namespace) && Number.isSafeInteger(Number(params.namespace))
      ? { $case: 'namespaceId', value: Number(params.namespace) }
      : { $case: 'namespacePath', value: params.namespace };
  }
  return undefined;
}

/** Rails' `errors.full_messages`: "Path has already been taken". */
export function fullMessages(fields: Record<string, string[]>): string[] {
  return Object.entries(fields).flatMap(([field, msgs]) => {
    const human = field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ');
    return msgs.map((m) => `${human} ${m}`);
  });
}

/** A failed save of the fork is `conflict!(result.message)`: 409 with the model's full messages. */
function asConflict(err: unknown): unknown {
  const e = err as { kind?: unknown; fields?: unknown };
  if (e?.kind === 'invalid' && typeof e.fields === 'object' && e.fields !== null) {
    return HttpError.conflict(fullMessages(e.fields as Record<string, string[]>));
  }
  return err;
}

export const projectForkRoutes: RouteDef[] = [
  route({
    method: 'POST', path: '/projects/:id/fork', access: 'user', params: forkParams,
    handler: async ({ params, actor, services, urls }) => {
      const res = await services.projects.forkProject({
        project: requireProject(params.id),
        namespace: forkNamespace(params),
        name: params.name ?? undefined,
        path: params.path ?? undefined,
        description: params.description ?? undefined,
        visibility: visibilityToProto(params.visibility),
        mrDefaultTargetSelf: params.mr_default_target_self ?? undefined,
        branches: params.branches ?? '',
      }).catch((err: unknown) => { throw asConflict(err); });
      return { status: 201, body: projectEntity(res.project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),

  route({
    method: 'POST', path: '/projects/:id/fork/:forked_from_id', access: 'user',
    params: defineParams({ id: p.string().required(), forked_from_id: p.string().required() }),
    handler: async ({ params, actor, services, urls }) => {
      const { project } = await services.projects.linkFork({ project: requireProject(params.id), forkedFrom: requireProject(params.forked_from_id) });
      return { status: 201, body: projectEntity(project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/fork', access: 'user', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      await services.projects.unlinkFork({ project: requireProject(params.id) });
      return { status: 204 };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/forks', access: 'public', params: listForksParams,
    handler: async (ctx) => {
      const { project } = await ctx.services.projects.getProject({ selector: requireProject(ctx.params.id).selector, withCustomAttributes: false, statistics: false });
      return listProjectsPage({ ...ctx, params: { ...keysetCursorOnly(ctx.params), with_programming_language: undefined } }, { forkedFromProjectId: Number(project!.id) });
    },
  }),
];
