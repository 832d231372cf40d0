import type { Pool } from '@glp/db';
import { projectsV1, type identityV1 } from '@glp/proto';
import { notFound, type Actor, type AsyncService, type PromiseClient } from '@glp/service-kit';
import { parseSearch, readScopeOf, resolveOrderBy } from '../domain/list-filter';
import { normalizeTopics } from '../domain/new-project';
import { canReadProject } from '../domain/visibility';
import { findProjectByFullPath, findProjectById, listProjects } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import { createProject } from './create-project';
import { accessFacts, toProtoProject, visibilityFromProto } from './mappers';

const callerId = (a: Actor) => (a.kind === 'user' ? a.id : 0);

export function projectsService(deps: {
  pool: Pool;
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getNamespace'>;
  topic: string;
  countLimit: number;
}): AsyncService<projectsV1.ProjectsServiceServer> {
  const { pool, identity, topic } = deps;
  return {
    async createProject(req, ctx) {
      const row = await createProject(pool, identity, topic, ctx.actor, req);
      return { project: toProtoProject(row, ctx.actor) };
    },

    async getProject(req, ctx) {
      const sel = req.selector;
      let row: ProjectRow | undefined;
      if (sel?.$case === 'id') row = await findProjectById(pool, sel.value, callerId(ctx.actor));
      else if (sel?.$case === 'fullPath') row = await findProjectByFullPath(pool, sel.value, callerId(ctx.actor));
      // Unreadable is indistinguishable from missing: GitLab never reveals a hidden project.
      if (!row || !canReadProject(ctx.actor, accessFacts(row))) throw notFound('Project');
      return { project: toProtoProject(row, ctx.actor) };
    },

    async listProjects(req, ctx) {
      const { rows, total } = await listProjects(pool, {
        callerId: callerId(ctx.actor),
        readScope: readScopeOf(ctx.actor),
        owned: req.owned && ctx.actor.kind === 'user',
        membership: req.membership && ctx.actor.kind === 'user',
        minAccessLevel: ctx.actor.kind === 'user' ? req.minAccessLevel : undefined,
        visibility: visibilityFromProto(req.visibility),
        archived: req.archived,
        idAfter: req.idAfter || undefined,
        idBefore: req.idBefore || undefined,
        topics: normalizeTopics(req.topics),
        search: parseSearch(req.search),
        orderBy: resolveOrderBy(req.orderBy),
        sort: req.sort === 'asc' ? 'asc' : 'desc',
        page: Math.max(1, req.page || 1),
        perPage: Math.min(100, Math.max(1, req.perPage || 20)),
        countLimit: req.skipCount ? 0 : deps.countLimit,
      });
      return { projects: rows.map((r) => toProtoProject(r, ctx.actor)), total };
    },
  };
}
