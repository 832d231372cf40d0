import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { eventEntity } from '../presenters/event';
import { requireProject } from './project-member-routes';

/** GitLab's `Event.actions` and `Event.target_types` (`app/models/event.rb`): the values the filters accept. */
const ACTIONS = ['created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved'] as const;
const TARGET_TYPES = ['issue', 'milestone', 'merge_request', 'note', 'project', 'snippet', 'user', 'wiki', 'design'] as const;

/**
 * GET /projects/:id/events (`lib/api/project_events.rb`, `EventsFinder`): public like GET /projects/:id (a project the
 * caller cannot read is 404 Project Not Found), GitLab's filter params (`action`, `target_type`, `before`/`after` as
 * dates, `sort` asc|desc by id, default desc; a bad value is 400 "<param> does not have a valid value" / "is invalid"),
 * offset pagination with GitLab's headers (per_page at most 100). The projects service decides what the caller sees.
 */
export const projectEventRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/projects/:id/events', access: 'public',
    params: defineParams({
      id: p.string().required(),
      action: p.enumOf(ACTIONS),
      target_type: p.enumOf(TARGET_TYPES),
      before: p.date(),
      after: p.date(),
      sort: p.enumOf(['asc', 'desc'] as const).default('desc'),
      ...paginationParams,
    }),
    handler: async ({ req, params, services, urls }) => {
      const { page, perPage } = parsePagination(params);
      const res = await services.projects.listProjectEvents({
        project: requireProject(params.id), action: params.action ?? '', targetType: params.target_type ?? '',
        before: params.before ?? '', after: params.after ?? '', sort: params.sort ?? 'desc', page, perPage,
      });
      return pageResult(req, urls.base, { page, perPage }, res.events.map((e) => eventEntity(e, urls)), Number(res.total));
    },
  }),
];
