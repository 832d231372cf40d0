import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { projectCustomAttribute, projectCustomAttributes, removeProjectCustomAttribute, setProjectCustomAttribute } from '../app/custom-attributes';
import type { CustomAttributeRow } from '../store/custom-attributes-store';

type Rpc = 'listProjectCustomAttributes' | 'getProjectCustomAttribute' | 'setProjectCustomAttribute' | 'deleteProjectCustomAttribute';

const toProto = (a: CustomAttributeRow): projectsV1.CustomAttribute => ({ key: a.key, value: a.value });

/** gRPC adapter of project custom attributes (administrators): decode, call the use case (app/custom-attributes), encode. */
export function customAttributesService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, Rpc> {
  return {
    async listProjectCustomAttributes(req, ctx) {
      return { customAttributes: (await projectCustomAttributes(deps, ctx.actor, req.project?.selector)).map(toProto) };
    },

    async getProjectCustomAttribute(req, ctx) {
      return { customAttribute: toProto(await projectCustomAttribute(deps, ctx.actor, req.project?.selector, req.key)) };
    },

    async setProjectCustomAttribute(req, ctx) {
      return { customAttribute: toProto(await setProjectCustomAttribute(deps, ctx.actor, req.project?.selector, req.key, req.value)) };
    },

    async deleteProjectCustomAttribute(req, ctx) {
      await removeProjectCustomAttribute(deps, ctx.actor, req.project?.selector, req.key);
      return {};
    },
  };
}

/**
 * Fills `custom_attributes` of projects from `shownCustomAttributes` (a project without any gets `[]`); leaves them
 * untouched when the caller did not get to see custom attributes (undefined).
 */
export function attachCustomAttributes(projects: projectsV1.Project[], byId: Map<number, CustomAttributeRow[]> | undefined): projectsV1.Project[] {
  if (byId) for (const p of projects) p.customAttributes = (byId.get(p.id) ?? []).map(toProto);
  return projects;
}
