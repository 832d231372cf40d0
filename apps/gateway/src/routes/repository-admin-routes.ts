import type { repoAdminV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectStorageEntity } from '../presenters/project-storage';
import { requireProject } from './project-member-routes';

/**
 * Repository administration, served by repo-admin (the storage service):
 * - GET /projects/:id/snapshot (`lib/api/project_snapshots.rb`): administrators (401 anonymous, 403 others, before the
 *   project is looked up); an uncompressed tar of the bare repository (`wiki=true`: of the wiki's), streamed from
 *   repo-admin's disk through gRPC server-streaming with back-pressure end to end, with Workhorse's headers
 *   (`workhorse/internal/git/snapshot.go`: `application/x-tar`, `attachment; filename="snapshot.tar"`, no length). A
 *   repository that is not on disk is GitLab's 200 with an empty body (Gitaly's NOT_FOUND arrives after the headers).
 * - GET /projects/:id/storage (`lib/api/projects.rb`, `authenticated_as_admin!`): the storage record, one object.
 * - GET /projects/:id/languages (`lib/api/projects.rb`): whoever may read the project; `{"Ruby": 66.69, …}`, `{}` when
 *   there is nothing to count.
 * - POST /projects/:id/housekeeping (`lib/api/projects.rb`, `Repositories::HousekeepingService`): Maintainers; 201 with
 *   the queued job's id, 409 `{"message":"Somebody already triggered housekeeping …"}` while one is queued or running.
 * - POST /projects/:id/repository_size (`lib/api/projects.rb`, `Projects::UpdateStatisticsService`): Maintainers; 201
 *   `true` (`ProjectStatistics#refresh!` returns `save!`'s true) once measured; projects shows it as `statistics`.
 * repo-admin asks projects, as the caller, whether the project is visible (404) and what the caller may do (403).
 */

/** `:id` (an id or a full path) as repo-admin takes it. */
const projectRef = (id: string | null | undefined): repoAdminV1.ProjectRef => requireProject(id);

export const repositoryAdminRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/projects/:id/snapshot', access: 'admin', produces: 'application/x-tar',
    params: defineParams({ id: p.string().required(), wiki: p.boolean() }),
    handler: async ({ params, services }) => {
      const stream = await services.repoAdminStreams.getSnapshot({ project: projectRef(params.id), wiki: params.wiki === true });
      return {
        stream,
        headers: {
          'Content-Disposition': 'attachment; filename="snapshot.tar"',
          'Content-Type': 'application/x-tar',
          'Content-Transfer-Encoding': 'binary',
          'Cache-Control': 'private',
        },
      };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/storage', access: 'admin',
    params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      const { project } = await services.projects.getProject({ selector: requireProject(params.id).selector, withCustomAttributes: false, statistics: false });
      let repository: repoAdminV1.Repository | undefined;
      try {
        ({ repository } = await services.repoAdmin.getRepository({ projectId: project!.id }));
      } catch (err) {
        if (!(err instanceof DomainError && err.kind === 'not_found')) throw err;
      }
      return { body: projectStorageEntity(project!, repository) };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/languages', access: 'public',
    params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      const { languages } = await services.repoAdmin.getLanguages({ project: projectRef(params.id) });
      return { body: Object.fromEntries(languages.map((l) => [l.name, l.share])) };
    },
  }),

  route({
    method: 'POST', path: '/projects/:id/housekeeping', access: 'user',
    params: defineParams({ id: p.string().required(), task: p.enumOf(['eager', 'prune']).default('eager') }),
    handler: async ({ params, services }) => {
      const { jobId } = await services.repoAdmin.startHousekeeping({ project: projectRef(params.id), task: params.task });
      return { status: 201, body: jobId };
    },
  }),

  route({
    method: 'POST', path: '/projects/:id/repository_size', access: 'user',
    params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      await services.repoAdmin.refreshStatistics({ project: projectRef(params.id) });
      return { status: 201, body: true };
    },
  }),
];
