import { projectsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { listProjects } from '../app/list-projects';
import { addMember, getMember, listMembers, removeMember, updateMember, type MemberView } from '../app/project-members';
import { levelsFrom, readableProject, shareLinksOf } from '../app/read-project';
import { shareAccess } from '../domain/sharing-rules';
import { createProject } from '../app/create-project';
import { importSourceFor } from '../app/import-source';
import { singleProjectExtras } from '../app/project-extras';
import { attachCustomAttributes, customAttributesService } from './custom-attributes-service';
import { shownCustomAttributes } from '../app/custom-attributes';
import { deletionService } from './deletion-service';
import { forkService } from './fork-service';
import { sharingService } from './sharing-service';
import { transferService } from './transfer-service';
import { lifecycleService } from './lifecycle-service';
import { toProtoProject } from './mappers';
import { updateService } from './update-service';
import { avatarService } from './avatar-service';

function toProtoMember(m: MemberView): projectsV1.ProjectMember {
  return projectsV1.ProjectMember.fromPartial({
    user: { id: m.user.id, username: m.user.username, name: m.user.name, state: m.user.state, avatarUrl: m.user.avatar_url },
    accessLevel: m.accessLevel,
    createdAt: m.createdAt,
    expiresAt: m.expiresAt ?? '',
    createdById: m.createdById ?? 0,
    sourceKind: m.sourceKind,
    sourceId: m.sourceId,
    createdBy: m.createdBy
      ? { id: m.createdBy.id, username: m.createdBy.username, name: m.createdBy.name, state: m.createdBy.state, avatarUrl: m.createdBy.avatar_url }
      : undefined,
  });
}

const page = (p: number, perPage: number) => ({ page: Math.max(1, p || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) });

/** gRPC adapters of the projects service: decode, call the use case (app/), encode. */
export function projectsService(deps: ProjectsDeps): AsyncService<projectsV1.ProjectsServiceServer> {
  return {
    ...deletionService(deps),
    ...transferService(deps),
    ...lifecycleService(deps),
    ...updateService(deps),
    ...avatarService(deps),
    ...sharingService(deps),
    ...forkService(deps),
    ...customAttributesService(deps),

    async getImportSource(req, ctx) {
      const { url, mirror } = await importSourceFor(deps, ctx.actor, req.projectId);
      return { url, mirror: { ...mirror, mirrorUserId: mirror.mirrorUserId ?? undefined, mirrorBranchRegex: mirror.mirrorBranchRegex ?? undefined } };
    },

    async createProject(req, ctx) {
      const row = await createProject(deps, ctx.actor, req);
      return { project: toProtoProject(row, ctx.actor) };
    },

    async getProject(req, ctx) {
      const { row, facts, access } = await readableProject(deps, ctx.actor, req.selector);
      // The hot path (GET /projects/:id): nothing more to fetch unless custom attributes or statistics were asked for.
      if (!req.withCustomAttributes && !req.statistics) return { project: toProtoProject(row, ctx.actor, facts) };
      const [attributes, extras] = await Promise.all([
        shownCustomAttributes(deps, ctx.actor, req.withCustomAttributes, [row.id]), singleProjectExtras(deps, ctx.actor, { row, access }, req.statistics),
      ]);
      return { project: attachCustomAttributes([toProtoProject(row, ctx.actor, facts, extras)], attributes)[0] };
    },

    async listProjects(req, ctx) {
      const { rows, groupAccess, total, customAttributes, statistics } = await listProjects(deps, ctx.actor, req);
      return {
        projects: attachCustomAttributes(rows.map((r) => toProtoProject(r, ctx.actor, {
          groupAccess: groupAccess.get(r.namespace_id) ?? 0, shareAccess: shareAccess(shareLinksOf(r), groupAccess),
          source: r.fork_source ? levelsFrom(groupAccess, r.fork_source.ns_kind, r.fork_source.namespace_id, r.fork_source.share_links) : undefined,
        }, { statistics: statistics.get(r.id) })), customAttributes),
        total,
      };
    },

    async listProjectMembers(req, ctx) {
      const { members, total } = await listMembers(deps, ctx.actor, req.project?.selector, {
        inherited: req.inherited, query: req.query, userIds: req.userIds, ...page(req.page, req.perPage),
      });
      return { members: members.map(toProtoMember), total };
    },

    async getProjectMember(req, ctx) {
      return { member: toProtoMember(await getMember(deps, ctx.actor, req.project?.selector, req.userId, req.inherited)) };
    },

    async addProjectMember(req, ctx) {
      const member = await addMember(deps, ctx.actor, req.project?.selector, {
        userId: req.userId, username: req.username, accessLevel: req.accessLevel, expiresAt: req.expiresAt,
      });
      return { member: toProtoMember(member) };
    },

    async updateProjectMember(req, ctx) {
      return { member: toProtoMember(await updateMember(deps, ctx.actor, req.project?.selector, req.userId, { accessLevel: req.accessLevel, expiresAt: req.expiresAt })) };
    },

    async removeProjectMember(req, ctx) {
      await removeMember(deps, ctx.actor, req.project?.selector, req.userId);
      return {};
    },
  };
}
