import type { identityV1 } from '@glp/proto';
import { HttpError } from '../http/errors';
import { pageResult, parsePagination } from '../http/pagination';
import { defineParams, p } from '../http/params';
import { route, type RouteContext, type RouteDef } from '../http/route';
import { keysetCursorOnly, listProjectsPage, projectListingParamFields, type ListingScope } from './project-routes';

/**
 * A user's project listings (`lib/api/projects.rb` `resource :users`): GET /users/:user_id/projects (projects in the
 * user's personal namespace, `PersonalProjectsFinder`) and GET /users/:user_id/starred_projects (`StarredProjectsFinder`),
 * each filtered to what the caller may read, with GitLab's listing filters.
 */

const { with_programming_language: _language, ...starredFields } = projectListingParamFields;

/**
 * The spec drops id_after, id_before and with_programming_language from starred_projects (ignored when sent); the
 * bound is read only as the keyset cursor its own next links carry (keysetCursorOnly).
 */
const userProjectsParams = defineParams({ user_id: p.string().required(), ...projectListingParamFields });
const starredProjectsParams = defineParams({ user_id: p.string().required(), ...starredFields });

/**
 * GitLab's `find_user(params[:user_id])` as the caller: digits are an id, anything else a username; identity answers
 * NOT_FOUND (→ 404 `{"message":"404 User Not Found"}`) for an unknown user and, to non-administrators, a blocked one.
 */
async function findUser(services: RouteContext<unknown>['services'], userId: string): Promise<{ user: identityV1.User; view: string }> {
  const byId = /^\d+$/.test(userId);
  if (byId && !Number.isSafeInteger(Number(userId))) throw HttpError.notFound('User');
  const res = await services.identity.getUser({ selector: byId ? { $case: 'id', value: Number(userId) } : { $case: 'username', value: userId } });
  return { user: res.user!, view: res.view };
}

type ListingContext = Parameters<typeof listProjectsPage>[0];

/**
 * Both finders start with `return Project.none unless can?(current_user, :read_user_profile, user)`: a private
 * profile (identity's "private" view: neither the user nor an administrator) lists nothing, with the usual headers.
 */
async function listForUser(ctx: ListingContext & { params: { user_id?: string | null } }, scopeOf: (u: identityV1.User) => ListingScope | undefined) {
  const { user, view } = await findUser(ctx.services, ctx.params.user_id ?? '');
  const scope = view === 'private' ? undefined : scopeOf(user);
  if (!scope) {
    const { page, perPage } = parsePagination(ctx.params);
    return pageResult(ctx.req, ctx.urls.base, { page, perPage }, [], 0);
  }
  return listProjectsPage(ctx, scope);
}

export const userProjectRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/users/:user_id/projects', access: 'public', params: userProjectsParams,
    // Only the user's personal namespace (not groups); a user without one has no personal projects.
    handler: (ctx) => listForUser(ctx, (u) => (Number(u.namespaceId) > 0 ? { namespaceId: Number(u.namespaceId) } : undefined)),
  }),

  route({
    method: 'GET', path: '/users/:user_id/starred_projects', access: 'public', params: starredProjectsParams,
    handler: (ctx) => listForUser({ ...ctx, params: { ...keysetCursorOnly(ctx.params), with_programming_language: undefined } },
      (u) => ({ starredByUserId: Number(u.id) })),
  }),
];
