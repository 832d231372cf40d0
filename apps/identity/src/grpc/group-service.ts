import type { identityV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { userGroupAccess } from '../app/group-access';
import { addMember, getMember, listMembers, removeMember, updateMember } from '../app/group-members';
import { createGroup, deleteGroup, getGroup, listGroups, restoreGroup, updateGroup, type GroupsDeps } from '../app/groups';
import { getNamespace, listNamespaces } from '../app/namespaces';
import { fromProtoSelector, pageOf, toProtoGroup, toProtoGroupNamespace, toProtoMember } from './group-mappers';
import { toProtoNamespace } from './mappers';

type GroupMethods =
  | 'getNamespace' | 'listNamespaces' | 'createGroup' | 'getGroup' | 'listGroups' | 'updateGroup' | 'deleteGroup' | 'restoreGroup'
  | 'listGroupMembers' | 'getGroupMember' | 'addGroupMember' | 'updateGroupMember' | 'removeGroupMember' | 'getUserGroupAccess';

/** gRPC adapters of namespaces, groups and group members: decode, call the use case, encode. */
export function groupService(deps: GroupsDeps): Pick<AsyncService<identityV1.IdentityServiceServer>, GroupMethods> {
  const { pool } = deps;
  return {
    async getNamespace(req, ctx) {
      const sel = req.selector;
      const { ns, owner, callerAccess } = await getNamespace(pool, ctx.actor, sel?.$case === 'fullPath' ? { fullPath: sel.value } : { id: sel?.$case === 'id' ? sel.value : 0 });
      return { namespace: toProtoNamespace(ns, owner), callerAccessLevel: callerAccess };
    },
    async listNamespaces(req, ctx) {
      const { rows, total } = await listNamespaces(deps, ctx.actor, { search: req.search, ownedOnly: req.ownedOnly, topLevelOnly: req.topLevelOnly, ...pageOf(req.page, req.perPage) });
      return { namespaces: rows.map(toProtoGroupNamespace), total };
    },
    async createGroup(req, ctx) {
      const group = await createGroup(deps, ctx.actor, {
        name: req.name, path: req.path, description: req.description, visibility: req.visibility,
        requestAccessEnabled: req.requestAccessEnabled, parentId: req.parentId,
      });
      return { group: toProtoGroup(group) };
    },
    async getGroup(req, ctx) {
      return { group: toProtoGroup(await getGroup(pool, ctx.actor, fromProtoSelector(req.group))) };
    },
    async listGroups(req, ctx) {
      const { rows, total } = await listGroups(deps, ctx.actor, {
        search: req.search, owned: req.owned, minAccessLevel: req.minAccessLevel, topLevelOnly: req.topLevelOnly,
        skipGroups: req.skipGroups, allAvailable: req.allAvailable, orderBy: req.orderBy, sort: req.sort,
        parentId: req.parentId, visibility: req.visibility, ...pageOf(req.page, req.perPage),
      });
      return { groups: rows.map(toProtoGroup), total };
    },
    async updateGroup(req, ctx) {
      const group = await updateGroup(deps, ctx.actor, fromProtoSelector(req.group), {
        name: req.name, path: req.path, description: req.description, visibility: req.visibility, requestAccessEnabled: req.requestAccessEnabled,
      });
      return { group: toProtoGroup(group) };
    },
    async deleteGroup(req, ctx) {
      return deleteGroup(deps, ctx.actor, fromProtoSelector(req.group), { permanentlyRemove: req.permanentlyRemove, fullPath: req.fullPath });
    },
    async restoreGroup(req, ctx) {
      return { group: toProtoGroup(await restoreGroup(deps, ctx.actor, fromProtoSelector(req.group))) };
    },
    async listGroupMembers(req, ctx) {
      const { rows, total } = await listMembers(deps, ctx.actor, fromProtoSelector(req.group), {
        inherited: req.inherited, query: req.query, userIds: req.userIds, ...pageOf(req.page, req.perPage),
      });
      return { members: rows.map(toProtoMember), total };
    },
    async getGroupMember(req, ctx) {
      return { member: toProtoMember(await getMember(deps, ctx.actor, fromProtoSelector(req.group), req.userId, req.inherited)) };
    },
    async addGroupMember(req, ctx) {
      const member = await addMember(deps, ctx.actor, fromProtoSelector(req.group), {
        userId: req.userId, username: req.username, accessLevel: req.accessLevel, expiresAt: req.expiresAt,
      });
      return { member: toProtoMember(member) };
    },
    async updateGroupMember(req, ctx) {
      const member = await updateMember(deps, ctx.actor, fromProtoSelector(req.group), req.userId, { accessLevel: req.accessLevel, expiresAt: req.expiresAt });
      return { member: toProtoMember(member) };
    },
    async getUserGroupAccess(req, ctx) {
      return { groups: await userGroupAccess(pool, ctx.actor, req.userId, req.groupIds) };
    },
    async removeGroupMember(req, ctx) {
      await removeMember(deps, ctx.actor, fromProtoSelector(req.group), req.userId);
      return {};
    },
  };
}
