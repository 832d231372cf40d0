import { projectsV1 } from '@glp/proto';
import { badRequest, toErrorPayload, type Actor, type AsyncService, type ErrorPayload } from '@glp/service-kit';
import type { ProjectsDeps } from '../app/deps';
import { listProjects } from '../app/list-projects';
import { addMember, getMember, listMembers, removeMember, updateMember, type MemberView } from '../app/project-members';
import { levelsFrom, readableProject, shareLinksOf, type ReadableProject } from '../app/read-project';
import { prefetchRows, readableFromBatch } from '../app/read-projects';
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
import { eventsService } from './events-service';
import { toProtoProject } from './mappers';
import { encodingKey, keptProject, projectsServiceDefinition, withEncodingKey, type EncodedProjectCache } from './encoded-projects';
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

/** An item of a GetProjects call: its caller once verified, else the error the item is answered with. */
type BatchItem = { requestId: string; request: projectsV1.GetProjectRequest } & ({ actor: Actor } | { error: ErrorPayload });

/** GetProjects takes at most this many items (the gateway sends batches of up to this). */
const MAX_BATCH_ITEMS = 100;

/**
 * The GetProject answer for a project the caller may read: the row alone on the hot path (GET /projects/:id), with
 * custom attributes and statistics only when asked for.
 */
async function projectAnswer(deps: ProjectsDeps, actor: Actor, req: projectsV1.GetProjectRequest, readable: ReadableProject): Promise<projectsV1.Project> {
  const { row, facts, access } = readable;
  if (!req.withCustomAttributes && !req.statistics) return toProtoProject(row, actor, facts);
  const [attributes, extras] = await Promise.all([
    shownCustomAttributes(deps, actor, req.withCustomAttributes, [row.id]), singleProjectExtras(deps, actor, { row, access }, req.statistics),
  ]);
  return attachCustomAttributes([toProtoProject(row, actor, facts, extras)], attributes)[0];
}

const page = (p: number, perPage: number) => ({ page: Math.max(1, p || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) });

/**
 * What main.ts serves: the handlers, whose listings answer projects seen before by their kept encodings (stand-ins that
 * carry the bytes), and the definition whose ListProjects serializer writes those bytes. Always the two together.
 */
export function servedProjectsService(deps: ProjectsDeps, encodings: EncodedProjectCache): {
  definition: ReturnType<typeof projectsServiceDefinition>; handlers: AsyncService<projectsV1.ProjectsServiceServer>;
} {
  return { definition: projectsServiceDefinition(encodings), handlers: projectsService(deps, encodings) };
}

/**
 * gRPC adapters of the projects service: decode, call the use case (app/), encode. With `encodings`, ListProjects
 * answers stand-ins for the projects whose encodings are kept, which only projectsServiceDefinition's serializer writes
 * (servedProjectsService); without, every listed project is read and mapped.
 */
export function projectsService(deps: ProjectsDeps, encodings?: EncodedProjectCache): AsyncService<projectsV1.ProjectsServiceServer> {
  return {
    ...deletionService(deps),
    ...transferService(deps),
    ...lifecycleService(deps),
    ...eventsService(deps),
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
      return { project: await projectAnswer(deps, ctx.actor, req, await readableProject(deps, ctx.actor, req.selector)) };
    },

    async getProjects(req, ctx) {
      const callers = ctx.callers;
      if (!callers) throw new Error('GetProjects is served through bindService (it verifies the items\' callers)');
      if (req.items.length > MAX_BATCH_ITEMS) throw badRequest(`at most ${MAX_BATCH_ITEMS} items`);
      // Every item's caller first (a forged one fails that item only), then the rows in one statement per caller (and
      // one for the projects the by-path items name).
      const items = req.items.map((item): BatchItem => {
        const requestId = item.requestId || ctx.requestId;
        const request = item.request ?? projectsV1.GetProjectRequest.fromPartial({});
        try {
          return { requestId, request, actor: callers.verify(item.actor, requestId, projectsV1.GetProjectRequest.encode(request).finish()) };
        } catch (err) {
          return { requestId, request, error: toErrorPayload(err) };
        }
      });
      const rows = await prefetchRows(deps, items.flatMap((i) => ('actor' in i ? [{ actor: i.actor, selector: i.request.selector }] : [])));
      const results = await Promise.all(items.map(async (item): Promise<projectsV1.GetProjectsResult> => {
        if (!('actor' in item)) return { result: { $case: 'error', value: item.error } };
        const { actor, request } = item;
        const outcome = await callers.run(actor, item.requestId, async () =>
          projectAnswer(deps, actor, request, await readableFromBatch(deps, { actor, selector: request.selector }, rows)));
        return { result: outcome.ok ? { $case: 'project', value: outcome.value } : { $case: 'error', value: outcome.error } };
      }));
      return { results };
    },

    async listProjects(req, ctx) {
      const actor = ctx.actor;
      const kept = encodings?.enabled && ((v: Parameters<typeof encodingKey>[0], groupAccess: number) => {
        const key = encodingKey(v, actor, { groupAccess, shareAccess: 0 }, false);
        const bytes = key === undefined ? undefined : encodings.kept(key);
        return bytes === undefined ? undefined : keptProject(v.id, bytes);
      });
      const { page, groupAccess, total, customAttributes, statistics, more } = await listProjects(deps, actor, req, kept || undefined);
      return {
        projects: attachCustomAttributes(page.map((listed) => {
          if (listed.kept !== undefined) return listed.kept;
          const r = listed.row;
          const levels = {
            groupAccess: groupAccess.get(r.namespace_id) ?? 0, shareAccess: shareAccess(shareLinksOf(r), groupAccess),
            source: r.fork_source ? levelsFrom(groupAccess, r.fork_source.ns_kind, r.fork_source.namespace_id, r.fork_source.share_links) : undefined,
          };
          const stats = statistics.get(r.id);
          const key = encodingKey(r, actor, levels, stats !== undefined || customAttributes !== undefined);
          return withEncodingKey(toProtoProject(r, actor, levels, { statistics: stats }), key);
        }), customAttributes),
        total,
        more,
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
