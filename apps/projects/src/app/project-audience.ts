import type { projectsV1 } from '@glp/proto';
import { DomainError, type Actor } from '@glp/service-kit';
import { directMembers } from '../store/members-store';
import { groupsByIds, selfAndAncestorIds, type GroupRow } from '../store/sharing-store';
import type { UserReplica } from '../store/users-replica-store';
import type { ProjectsDeps } from './deps';
import { inheritedMembers, withUsers } from './project-members';
import { readableProject } from './read-project';

const pageOf = <T>(all: T[], page: number, perPage: number) => all.slice((page - 1) * perPage, page * perPage);

/**
 * GET /projects/:id/users (GitLab's `project.team.users`, ordered by user id): anyone who may read the project sees
 * the users with access to it — unexpired direct members, the members of its group namespace (ancestors included) and
 * of the groups it is shared with through unexpired links — each once; `search` matches username or name.
 */
export async function listProjectUsers(
  deps: ProjectsDeps,
  actor: Actor,
  req: projectsV1.ListProjectUsersRequest,
  page: { page: number; perPage: number },
): Promise<{ users: UserReplica[]; total: number }> {
  const { row } = await readableProject(deps, actor, req.project?.selector);
  const filter = { query: req.search, userIds: [] };
  const users = new Map<number, UserReplica>();
  for (const m of await withUsers(deps, (await directMembers(deps.pool, row.id, filter)).rows)) users.set(m.user.id, m.user);
  const groupIds = [...(row.ns_kind === 'group' ? [row.namespace_id] : []), ...row.share_links.map((l) => l.group_id)];
  const inherited = await Promise.all(groupIds.map((id) => inheritedMembers(deps.identity, id, filter)));
  for (const m of inherited.flat()) if (!users.has(m.user.id)) users.set(m.user.id, m.user);
  const skip = new Set(req.skipUsers);
  const all = [...users.values()].filter((u) => !skip.has(u.id)).sort((a, b) => a.id - b.id);
  return { users: pageOf(all, page.page, page.perPage), total: all.length };
}

/** Shared groups the caller may read (GitLab's `public_or_visible_to_user`), asked of identity as the caller. */
async function visibleToCaller(deps: ProjectsDeps, actor: Actor, ids: number[]): Promise<number[]> {
  if (actor.admin) return ids;
  const seen = await Promise.all(ids.map(async (id) => {
    try {
      await deps.identity.getGroup({ group: { selector: { $case: 'id', value: id } } });
      return id;
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') return 0;
      throw err;
    }
  }));
  return seen.filter((id) => id > 0);
}

/**
 * GET /projects/:id/groups (`Projects::GroupsFinder`): the project's group namespace and its ancestors, with
 * `with_shared` also the groups it is shared with (unexpired links; `shared_min_access_level` on the link's level,
 * `shared_visible_only`: those the caller may read); minus `skip_groups`; `search` on name or path; by id.
 */
export async function listProjectGroups(
  deps: ProjectsDeps,
  actor: Actor,
  req: projectsV1.ListProjectGroupsRequest,
  page: { page: number; perPage: number },
): Promise<{ groups: GroupRow[]; total: number }> {
  const { row } = await readableProject(deps, actor, req.project?.selector);
  const ids = row.ns_kind === 'group' ? await selfAndAncestorIds(deps.pool, row.namespace_id) : [];
  if (req.withShared) {
    const shared = row.share_links.filter((l) => l.group_access >= req.sharedMinAccessLevel).map((l) => l.group_id);
    ids.push(...(req.sharedVisibleOnly ? await visibleToCaller(deps, actor, shared) : shared));
  }
  const skip = new Set(req.skipGroups);
  const term = req.search.toLowerCase();
  const all = (await groupsByIds(deps.pool, [...new Set(ids)].filter((id) => !skip.has(id))))
    .filter((g) => !term || g.name.toLowerCase().includes(term) || g.path.toLowerCase().includes(term));
  return { groups: pageOf(all, page.page, page.perPage), total: all.length };
}
