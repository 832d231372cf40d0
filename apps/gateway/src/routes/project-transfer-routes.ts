import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectEntity } from '../presenters/project';
import { requireProject } from './project-member-routes';

/**
 * PUT /projects/:id/transfer (spec 4.5; reference 8): `namespace` is an id or a full path. Owners and administrators;
 * the target namespace must be visible through membership (else 404 Namespace Not Found); GitLab's
 * `Failed to transfer project {:new_namespace=>[...]}` 400s come from the projects service as they are.
 */
export const projectTransferRoutes: RouteDef[] = [
  route({
    method: 'PUT', path: '/projects/:id/transfer', access: 'user',
    params: defineParams({ id: p.string().required(), namespace: p.string().required() }),
    handler: async ({ params, actor, services, urls }) => {
      const ns = params.namespace ?? '';
      const id = /^\d+$/.test(ns) ? Number(ns) : undefined;
      const { project } = await services.projects.transferProject({
        project: requireProject(params.id),
        namespace: id !== undefined && Number.isSafeInteger(id) ? { $case: 'namespaceId', value: id } : { $case: 'namespacePath', value: ns },
      });
      return { body: projectEntity(project!, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),
];
