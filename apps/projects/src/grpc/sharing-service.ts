import type { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { importProjectMembers } from '../app/import-members';
import { listProjectGroups, listProjectUsers } from '../app/project-audience';
import { shareProject, unshareProject } from '../app/sharing';

type SharingRpcs = 'shareProject' | 'unshareProject' | 'listProjectUsers' | 'listProjectGroups' | 'importProjectMembers';

const page = (p: number, perPage: number) => ({ page: Math.max(1, p || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) });

/** gRPC adapters of sharing with groups, the project's users and groups, and member import. */
export function sharingService(deps: ProjectsDeps): Pick<AsyncService<projectsV1.ProjectsServiceServer>, SharingRpcs> {
  return {
    async shareProject(req, ctx) {
      const l = await shareProject(deps, ctx.actor, req);
      return { link: { id: l.id, projectId: l.project_id, groupId: l.group_id, groupAccess: l.group_access, expiresAt: l.expires_at ?? '' } };
    },

    async unshareProject(req, ctx) {
      await unshareProject(deps, ctx.actor, req);
      return {};
    },

    async listProjectUsers(req, ctx) {
      const { users, total } = await listProjectUsers(deps, ctx.actor, req, page(req.page, req.perPage));
      return { users: users.map((u) => ({ id: u.id, username: u.username, name: u.name, state: u.state, avatarUrl: u.avatar_url })), total };
    },

    async listProjectGroups(req, ctx) {
      const { groups, total } = await listProjectGroups(deps, ctx.actor, req, page(req.page, req.perPage));
      return { groups: groups.map((g) => ({ id: g.id, name: g.name, path: g.path, fullPath: g.full_path, fullName: g.full_name })), total };
    },

    async importProjectMembers(req, ctx) {
      const r = await importProjectMembers(deps, ctx.actor, req);
      return { status: r.status, errors: r.errors, totalMembersCount: r.totalMembersCount, message: r.failure?.message ?? '', reason: r.failure?.reason ?? '' };
    },
  };
}
