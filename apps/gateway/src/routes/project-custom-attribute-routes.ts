import type { projectsV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { HttpError } from '../http/errors';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectSelector } from './project-routes';

/**
 * Custom attributes of a project (GitLab `lib/api/custom_attributes_endpoints.rb`, included in `resource :projects`):
 * administrators list, read, set and delete free key/value pairs. GitLab's order of checks is kept:
 * `authenticate_non_get!` (401 for an anonymous PUT/DELETE), then Grape's params (400), then `find_project` — whoever may
 * read it; missing → `not_found!` → 404 `{"message":"404 Not Found"}` — then `authorize!` (403 for non-administrators,
 * an anonymous GET included). The projects service decides the last two.
 */

/** `find_project(id)`: digits are an id, a value with "/" a full path; anything else finds nothing (`not_found!`). */
function attributable(id: string | null | undefined): projectsV1.ProjectSelector {
  const selector = projectSelector(id ?? '');
  if (!selector) throw HttpError.notFound();
  return { selector };
}

/** `Entities::CustomAttribute`: key, value. ONE literal. */
const customAttributeEntity = (a: projectsV1.CustomAttribute | undefined) => ({ key: a?.key ?? '', value: a?.value ?? '' });

/** ActiveModel `full_messages`: "Key can't be blank" (the attribute humanized, then the message). */
function fullMessages(fields: Record<string, string[]>): string[] {
  return Object.entries(fields).flatMap(([field, messages]) =>
    messages.map((m) => `${field.charAt(0).toUpperCase()}${field.slice(1).replace(/_/g, ' ')} ${m}`));
}

const oneParams = defineParams({ id: p.string().required(), key: p.string().required() });

export const projectCustomAttributeRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/projects/:id/custom_attributes', access: 'public',
    params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      const { customAttributes } = await services.projects.listProjectCustomAttributes({ project: attributable(params.id) });
      return { body: customAttributes.map(customAttributeEntity) };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/custom_attributes/:key', access: 'public', params: oneParams,
    handler: async ({ params, services }) => {
      const { customAttribute } = await services.projects.getProjectCustomAttribute({ project: attributable(params.id), key: params.key ?? '' });
      return { body: customAttributeEntity(customAttribute) };
    },
  }),

  route({
    method: 'PUT', path: '/projects/:id/custom_attributes/:key', access: 'user',
    params: defineParams({ id: p.string().required(), key: p.string().required(), value: p.string().required() }),
    handler: async ({ params, services }) => {
      try {
        const { customAttribute } = await services.projects.setProjectCustomAttribute({
          project: attributable(params.id), key: params.key ?? '', value: params.value ?? '',
        });
        return { body: customAttributeEntity(customAttribute) };
      } catch (err) {
        // `render_api_error!(result.message, :bad_request)` with the model's `errors.full_messages` (an array).
        if (err instanceof DomainError && err.kind === 'invalid' && err.fields) throw new HttpError(400, { message: fullMessages(err.fields) });
        throw err;
      }
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/custom_attributes/:key', access: 'user', params: oneParams,
    handler: async ({ params, services }) => {
      await services.projects.deleteProjectCustomAttribute({ project: attributable(params.id), key: params.key ?? '' });
      return { status: 204 }; // no_content!
    },
  }),
];
