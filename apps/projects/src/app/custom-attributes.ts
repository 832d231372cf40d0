import type { projectsV1 } from '@glp/proto';
import { forbidden, invalid, notFound, recordNotFound, type Actor } from '@glp/service-kit';
import { customAttributeErrors, mayManageCustomAttributes, showsCustomAttributes } from '../domain/custom-attribute-rules';
import {
  customAttributesOf,
  deleteCustomAttribute,
  existingProjectId,
  findCustomAttribute,
  listCustomAttributes,
  upsertCustomAttribute,
  type CustomAttributeRow,
} from '../store/custom-attributes-store';
import type { ProjectsDeps } from './deps';

/**
 * GET/PUT/DELETE /projects/:id/custom_attributes[/:key] (GitLab `lib/api/custom_attributes_endpoints.rb`). The order of
 * GitLab's checks is kept: the project is looked up first (`find_project`, whoever may read it) and a missing one is
 * `not_found!` → 404 "404 Not Found"; then `authorize!` (administrators) → 403. Custom attributes write no event: GitLab
 * has none and no other service keeps them.
 */
async function attributableProject(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<number> {
  const id = sel?.$case === 'id' ? await existingProjectId(deps.pool, { id: sel.value })
    : sel?.$case === 'fullPath' ? await existingProjectId(deps.pool, { fullPath: sel.value })
    : undefined;
  if (id === undefined) throw notFound();
  if (!mayManageCustomAttributes(actor)) throw forbidden();
  return id;
}

export async function projectCustomAttributes(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector']): Promise<CustomAttributeRow[]> {
  return listCustomAttributes(deps.pool, await attributableProject(deps, actor, sel));
}

/** A missing key is `custom_attributes.find_by!` → ActiveRecord::RecordNotFound → 404 "404 Not found". */
export async function projectCustomAttribute(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], key: string): Promise<CustomAttributeRow> {
  const found = await findCustomAttribute(deps.pool, await attributableProject(deps, actor, sel), key);
  if (!found) throw recordNotFound();
  return found;
}

/**
 * Creates or updates (`CustomAttributes::UpsertService`); blank key/value fail the model's presence validation
 * (invalid: the gateway renders GitLab's `render_api_error!(errors.full_messages, 400)`).
 */
export async function setProjectCustomAttribute(
  deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], key: string, value: string,
): Promise<CustomAttributeRow> {
  const projectId = await attributableProject(deps, actor, sel);
  const errors = customAttributeErrors(key, value);
  if (errors) throw invalid(errors);
  const saved = await upsertCustomAttribute(deps.pool, projectId, key, value);
  if (!saved) throw notFound(); // the project was deleted meanwhile
  return saved;
}

/** `CustomAttributes::DestroyService`: a missing key is `not_found!('Custom attribute')`. */
export async function removeProjectCustomAttribute(deps: ProjectsDeps, actor: Actor, sel: projectsV1.ProjectSelector['selector'], key: string): Promise<void> {
  if (!(await deleteCustomAttribute(deps.pool, await attributableProject(deps, actor, sel), key))) throw notFound('Custom attribute');
}

/**
 * `with_custom_attributes` on GET /projects/:id and the listings (`API::Helpers::CustomAttributes`): the attributes of
 * these projects in ONE query (a listing's page, never a query per project), when an administrator asked for them;
 * undefined otherwise (the field is then absent).
 */
export async function shownCustomAttributes(
  deps: ProjectsDeps, actor: Actor, requested: boolean, projectIds: readonly number[],
): Promise<Map<number, CustomAttributeRow[]> | undefined> {
  return showsCustomAttributes(actor, requested) ? customAttributesOf(deps.pool, projectIds) : undefined;
}
