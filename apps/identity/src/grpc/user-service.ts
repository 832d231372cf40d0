import type { identityV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { deleteUser, findUsersByEmails, getUser, listUsers, setBlocked, updateUser, type UsersDeps } from '../app/users';
import { pageOf } from './group-mappers';
import { toProtoUser } from './mappers';

type UserMethods = 'getUser' | 'listUsers' | 'updateUser' | 'deleteUser' | 'blockUser' | 'unblockUser' | 'findUsersByEmails';

/** gRPC adapters of users: decode, call the use case, encode. */
export function userService(deps: UsersDeps): Pick<AsyncService<identityV1.IdentityServiceServer>, UserMethods> {
  return {
    async getUser(req, ctx) {
      const sel = req.selector;
      const { user, view } = await getUser(deps.pool, ctx.actor, sel?.$case === 'username' ? { username: sel.value } : { id: sel?.$case === 'id' ? sel.value : 0 });
      return { user: toProtoUser(user), view };
    },
    async findUsersByEmails(req, ctx) {
      return { matches: await findUsersByEmails(deps.pool, ctx.actor, req.emails) };
    },
    async listUsers(req, ctx) {
      const { rows, total, view } = await listUsers(deps, ctx.actor, {
        username: req.username, search: req.search, active: req.active, blocked: req.blocked, external: req.external,
        orderBy: req.orderBy, sort: req.sort, ...pageOf(req.page, req.perPage),
      });
      return { users: rows.map(toProtoUser), total, view };
    },
    async updateUser(req, ctx) {
      return { user: toProtoUser(await updateUser(deps, ctx.actor, req)) };
    },
    async deleteUser(req, ctx) {
      await deleteUser(deps, ctx.actor, req.id, req.hardDelete);
      return {};
    },
    async blockUser(req, ctx) {
      await setBlocked(deps, ctx.actor, req.id, true);
      return {};
    },
    async unblockUser(req, ctx) {
      await setBlocked(deps, ctx.actor, req.id, false);
      return {};
    },
  };
}
