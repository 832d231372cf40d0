import { systemActor } from '@glp/service-kit';
import { defineParams, p } from '../http/params';
import { HttpError } from '../http/errors';
import { route, type RouteDef } from '../http/route';
import { personalAccessToken, userEntity, userPublic, userWithAdmin } from '../presenters/user';
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
    method: 'GET', path: '/users/:id', access: 'public', scopes: ['read_user'],
    params: defineParams({ id: p.integer().required() }),
    handler: async ({ params, actor, services, urls }) => {
      const { user } = await services.identity.getUser({ selector: { $case: 'id', value: params.id ?? 0 } }, { actor: systemActor('gateway') });
      if (!user || (user.state === 'blocked' && !actor.admin)) throw HttpError.notFound('User');
      if (actor.admin) return { body: userWithAdmin(user, urls) };
      if (actor.kind === 'user' && actor.id === user.id) return { body: userPublic(user, urls, false) };
      return { body: userEntity(user, urls) };
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
