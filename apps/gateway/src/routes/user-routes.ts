import type { identityV1 } from '@glp/proto';
import { defineParams, p } from '../http/params';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { personalAccessToken, presentUser, userBasic, userPublic, userWithAdmin } from '../presenters/user';
import { TOKEN_SCOPE_VALUES } from './token-scopes';

const createUserParams = defineParams({
  email: p.string().required(),
  name: p.string().required(),
  username: p.string().required(),
  password: p.string(),
  reset_password: p.boolean(),
  force_random_password: p.boolean(),
  admin: p.boolean(),
  projects_limit: p.int32(),
  can_create_group: p.boolean(),
  external: p.boolean(),
  skip_confirmation: p.boolean(),
  bio: p.string(),
  location: p.string(),
  public_email: p.string(),
  website_url: p.string(),
  organization: p.string(),
  job_title: p.string(),
  private_profile: p.boolean(),
}).exactlyOneOf('password', 'reset_password', 'force_random_password');

export const userRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/user', access: 'user', scopes: ['read_user'], params: defineParams({}),
    handler: async ({ user, actor, urls }) => ({ body: userPublic(user!, urls, actor.admin) }),
  }),

  route({
    method: 'GET', path: '/users', access: 'public', scopes: ['read_user'],
    params: defineParams({
      ...paginationParams,
      username: p.string(),
      search: p.string(),
      active: p.boolean(),
      blocked: p.boolean(),
      external: p.boolean(),
      order_by: p.enumOf(['id', 'name', 'username', 'created_at', 'updated_at']).default('id'),
      sort: p.enumOf(['asc', 'desc']).default('desc'),
    }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.identity.listUsers({
        username: params.username ?? '', search: params.search ?? '', active: params.active ?? false, blocked: params.blocked ?? false,
        external: params.external ?? undefined, orderBy: params.order_by ?? 'id', sort: params.sort ?? 'desc', page, perPage,
      });
      const present = res.view === 'admin' ? (u: identityV1.User) => userWithAdmin(u, urls) : (u: identityV1.User) => userBasic(u, urls);
      return pageResult(req, urls.base, { page, perPage }, res.users.map(present), Number(res.total));
    },
  }),

  route({
    method: 'GET', path: '/users/:id', access: 'public', scopes: ['read_user'],
    params: defineParams({ id: p.integer().required() }),
    handler: async ({ params, services, urls }) => {
      // identity answers for the caller: 404 for a user they may not see, and which entity they get.
      const { user, view } = await services.identity.getUser({ selector: { $case: 'id', value: params.id ?? 0 } });
      return { body: presentUser(user!, view, urls) };
    },
  }),

  route({
    method: 'PUT', path: '/users/:id', access: 'admin',
    params: defineParams({
      id: p.integer().required(),
      email: p.string(),
      name: p.string(),
      username: p.string(),
      password: p.string(),
      admin: p.boolean(),
      projects_limit: p.int32(),
      can_create_group: p.boolean(),
      external: p.boolean(),
      bio: p.string(),
      location: p.string(),
      public_email: p.string(),
      website_url: p.string(),
      organization: p.string(),
      job_title: p.string(),
      private_profile: p.boolean(),
    }),
    handler: async ({ params, services, urls }) => {
      const { user } = await services.identity.updateUser({
        id: params.id ?? 0,
        email: params.email ?? undefined,
        name: params.name ?? undefined,
        username: params.username ?? undefined,
        password: params.password ?? undefined,
        admin: params.admin ?? undefined,
        projectsLimit: params.projects_limit ?? undefined,
        canCreateGroup: params.can_create_group ?? undefined,
        external: params.external ?? undefined,
        bio: params.bio ?? undefined,
        location: params.location ?? undefined,
        publicEmail: params.public_email ?? undefined,
        websiteUrl: params.website_url ?? undefined,
        organization: params.organization ?? undefined,
        jobTitle: params.job_title ?? undefined,
        privateProfile: params.private_profile ?? undefined,
      });
      return { body: userWithAdmin(user!, urls) };
    },
  }),

  route({
    method: 'DELETE', path: '/users/:id', access: 'admin',
    params: defineParams({ id: p.integer().required(), hard_delete: p.boolean() }),
    handler: async ({ params, services }) => {
      await services.identity.deleteUser({ id: params.id ?? 0, hardDelete: params.hard_delete ?? false });
      return { status: 204 };
    },
  }),

  route({
    method: 'POST', path: '/users/:id/block', access: 'admin', params: defineParams({ id: p.integer().required() }),
    handler: async ({ params, services }) => {
      await services.identity.blockUser({ id: params.id ?? 0 });
      return { status: 201, body: true };
    },
  }),

  route({
    method: 'POST', path: '/users/:id/unblock', access: 'admin', params: defineParams({ id: p.integer().required() }),
    handler: async ({ params, services }) => {
      await services.identity.unblockUser({ id: params.id ?? 0 });
      return { status: 201, body: true };
    },
  }),

  route({
    method: 'POST', path: '/users', access: 'admin', params: createUserParams,
    handler: async ({ params, services, urls }) => {
      const { user } = await services.identity.createUser({
        email: params.email ?? '',
        name: params.name ?? '',
        username: params.username ?? '',
        password: params.password ?? '',
        resetPassword: params.reset_password ?? false,
        forceRandomPassword: params.force_random_password ?? false,
        admin: params.admin ?? false,
        projectsLimit: params.projects_limit ?? undefined,
        canCreateGroup: params.can_create_group ?? undefined,
        external: params.external ?? false,
        skipConfirmation: params.skip_confirmation ?? false,
        bio: params.bio ?? '',
        location: params.location ?? '',
        publicEmail: params.public_email ?? '',
        websiteUrl: params.website_url ?? '',
        organization: params.organization ?? '',
        jobTitle: params.job_title ?? '',
        privateProfile: params.private_profile ?? false,
      });
      return { status: 201, body: userWithAdmin(user!, urls) };
    },
  }),

  route({
    method: 'POST', path: '/users/:user_id/personal_access_tokens', access: 'admin',
    params: defineParams({
      user_id: p.integer().required(),
      name: p.string().required(),
      description: p.string(),
      scopes: p.arrayOf(p.string()).values(TOKEN_SCOPE_VALUES).required(),
      expires_at: p.date(),
    }),
    handler: async ({ params, services }) => {
      const { token } = await services.identity.createPersonalAccessToken({
        userId: params.user_id ?? 0,
        name: params.name ?? '',
        description: params.description ?? '',
        scopes: params.scopes,
        expiresAt: params.expires_at ?? '',
      });
      return { status: 201, body: personalAccessToken(token!, true) };
    },
  }),
];
