import { STATUS_CODES } from 'node:http';
import type { hooksV1 } from '@glp/proto';
import { DomainError, RECORD } from '@glp/service-kit';
import { HttpError } from '../http/errors';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { projectHookEntity, webHookLogEntity } from '../presenters/hook';
import { projectSelector } from './project-routes';

/**
 * Project hooks (GitLab `lib/api/project_hooks.rb`, `lib/api/helpers/web_hooks_helpers.rb`,
 * `lib/api/hooks/{trigger_test,events,resend_hook}.rb`; spec 4.7, reference §13). Signed-in callers; the hooks
 * service decides (404 hidden project, 403 below Maintainer, "404 Not found" for an unknown hook).
 */

const EVENT_PARAMS = {
  push_events: p.boolean(), issues_events: p.boolean(), confidential_issues_events: p.boolean(), merge_requests_events: p.boolean(),
  tag_push_events: p.boolean(), note_events: p.boolean(), confidential_note_events: p.boolean(), job_events: p.boolean(),
  pipeline_events: p.boolean(), wiki_page_events: p.boolean(), deployment_events: p.boolean(), feature_flag_events: p.boolean(),
  releases_events: p.boolean(), milestone_events: p.boolean(), emoji_events: p.boolean(), resource_access_token_events: p.boolean(),
  resource_deploy_token_events: p.boolean(), vulnerability_events: p.boolean(),
};

/**
 * `ProjectHook.triggers.values` (`lib/api/hooks/trigger_test.rb`: `requires :trigger, values: …`): Grape validates the
 * param before the route body, so an unknown trigger is 400 and never counts against the test rate limit.
 */
const TEST_TRIGGERS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events',
  'merge_requests_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'feature_flag_events',
  'releases_events', 'milestone_events', 'emoji_events', 'resource_access_token_events', 'resource_deploy_token_events',
  'vulnerability_events',
] as const;

/** `:common_hook_parameters` (without `url`, which POST requires and PUT makes optional). */
const COMMON = {
  name: p.string(),
  description: p.string(),
  ...EVENT_PARAMS,
  enable_ssl_verification: p.boolean(),
  token: p.string(),
  push_events_branch_filter: p.string(),
  custom_webhook_template: p.string(),
  // WebHook.branch_filter_strategies.keys
  branch_filter_strategy: p.enumOf(['wildcard', 'regex', 'all_branches']),
  url_variables: p.arrayOf(p.hash()),
  custom_headers: p.arrayOf(p.hash()),
};

/**
 * GitLab's `check_unmodified_since!`: the If-Unmodified-Since time in ms (HTTP dates have whole seconds, so the
 * resource's time is compared at that precision too: GitLab's `last_modified > if_unmodified_since`); unparsable →
 * ignored.
 */
function unmodifiedSince(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const t = Date.parse(header);
  return Number.isNaN(t) ? undefined : t + 999;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `requires :key, :value` of each `url_variables[]` / `custom_headers[]` element (Grape's nested messages). */
function keyValues(name: string, list: Record<string, unknown>[] | null | undefined): hooksV1.KeyValues | undefined {
  if (list === undefined || list === null) return undefined;
  const missing: string[] = [];
  const items = list.map((item, i) => {
    for (const k of ['key', 'value']) if (item[k] === undefined || item[k] === null) missing.push(`${name}[${i}][${k}] is missing`);
    return { key: String(item.key ?? ''), value: String(item.value ?? '') };
  });
  if (missing.length > 0) throw HttpError.paramError(missing.join(', '));
  return { items };
}

type HookParams = Record<string, unknown> & { url_variables?: Record<string, unknown>[] | null; custom_headers?: Record<string, unknown>[] | null };

function hookInput(params: HookParams): hooksV1.HookInput {
  const events: Record<string, boolean> = {};
  for (const name of Object.keys(EVENT_PARAMS)) {
    const v = params[name];
    if (typeof v === 'boolean') events[camel(name)] = v;
  }
  const str = (k: string) => (typeof params[k] === 'string' ? (params[k] as string) : undefined);
  return {
    url: str('url'), token: str('token'), name: str('name'), description: str('description'), events,
    enableSslVerification: typeof params.enable_ssl_verification === 'boolean' ? params.enable_ssl_verification : undefined,
    pushEventsBranchFilter: str('push_events_branch_filter'), branchFilterStrategy: str('branch_filter_strategy'),
    customWebhookTemplate: str('custom_webhook_template'),
    urlVariables: keyValues('url_variables', params.url_variables), customHeaders: keyValues('custom_headers', params.custom_headers),
  };
}

function project(id: string | null | undefined): hooksV1.ProjectRef {
  const selector = projectSelector(id ?? '');
  if (!selector) throw HttpError.notFound('Project');
  return { selector };
}

/**
 * The hooks service's refusals in GitLab's two shapes: Grape's `error!(msg, status)` → `{"error": msg}` (carried as
 * the field `error`), and `render_validation_error!(hook, 422)` → `{"message": {attr: [...]}}`.
 */
async function hooks<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DomainError && err.fields) {
      const only = err.fields.error;
      if (only && only.length === 1 && (err.kind === 'unprocessable' || err.kind === 'bad_request')) {
        throw new HttpError(err.kind === 'unprocessable' ? 422 : 400, { error: only[0] });
      }
      if (err.kind === 'unprocessable') throw HttpError.validation(err.fields, 422);
    }
    throw err;
  }
}

/** No such hook (the project's 404 and every other error pass through): undefined. */
function absentHook(err: unknown): undefined {
  if (err instanceof DomainError && err.kind === 'not_found' && err.message === RECORD) return undefined;
  throw err;
}

/** 429 as `check_rate_limit!` words it (GitLab sends no Retry-After; ours tells the client when to come back). */
function throttled(retryAfterSeconds: number): HttpError {
  const e = HttpError.rateLimited();
  return new HttpError(e.status, e.body, { 'Retry-After': String(retryAfterSeconds) });
}

// Rack::Utils::HTTP_STATUS_CODES keys and the finder's groups (lib/api/hooks/events.rb).
const EVENT_STATUSES = [...Object.keys(STATUS_CODES), 'successful', 'client_failure', 'server_failure'];
const PER_PAGE_1_TO_20 = Array.from({ length: 20 }, (_, i) => i + 1);

const idParams = { id: p.string().required(), hook_id: p.integer().required() };

export const projectHookRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/projects/:id/hooks', access: 'user', params: defineParams({ id: p.string().required(), ...paginationParams }),
    handler: async ({ req, params, services, urls }) => {
      const page = parsePagination(params);
      const res = await hooks(() => services.hooks.listHooks({ project: project(params.id), page: page.page, perPage: page.perPage }));
      return pageResult(req, urls.base, page, res.hooks.map((h) => projectHookEntity(h, { withKeys: false })), Number(res.total));
    },
  }),
  route({
    method: 'GET', path: '/projects/:id/hooks/:hook_id', access: 'user', params: defineParams(idParams),
    handler: async ({ params, services }) => {
      const { hook } = await hooks(() => services.hooks.getHook({ project: project(params.id), hookId: params.hook_id ?? 0 }));
      return { body: projectHookEntity(hook!) };
    },
  }),
  route({
    method: 'POST', path: '/projects/:id/hooks', access: 'user',
    params: defineParams({ id: p.string().required(), url: p.string().required(), ...COMMON }),
    handler: async ({ params, services }) => {
      const input = hookInput(params as HookParams);
      const { hook } = await hooks(() => services.hooks.createHook({ project: project(params.id), input }));
      return { status: 201, body: projectHookEntity(hook!) };
    },
  }),
  route({
    method: 'PUT', path: '/projects/:id/hooks/:hook_id', access: 'user', params: defineParams({ ...idParams, url: p.string(), ...COMMON }),
    handler: async ({ params, services }) => {
      const input = hookInput(params as HookParams);
      const { hook } = await hooks(() => services.hooks.updateHook({ project: project(params.id), hookId: params.hook_id ?? 0, input }));
      return { body: projectHookEntity(hook!) };
    },
  }),
  route({
    method: 'DELETE', path: '/projects/:id/hooks/:hook_id', access: 'user', params: defineParams(idParams),
    handler: async ({ req, params, services }) => {
      // `destroy_conditionally!`: a hook edited after the client's If-Unmodified-Since is 412, not deleted.
      const since = unmodifiedSince(req.headers['if-unmodified-since']);
      if (since !== undefined) {
        const hook = await hooks(() => services.hooks.getHook({ project: project(params.id), hookId: params.hook_id ?? 0 })).then((r) => r.hook, absentHook);
        if (hook?.updatedAt && hook.updatedAt.getTime() > since) throw HttpError.preconditionFailed();
      }
      // Idempotent (spec 4.7): the deleted hook's record, or 204 with no body when there was no such hook.
      const { hook } = await hooks(() => services.hooks.deleteHook({ project: project(params.id), hookId: params.hook_id ?? 0 }));
      return hook ? { body: projectHookEntity(hook) } : { status: 204 };
    },
  }),
  route({
    method: 'POST', path: '/projects/:id/hooks/:hook_id/test/:trigger', access: 'user',
    params: defineParams({ ...idParams, trigger: p.enumOf(TEST_TRIGGERS).required() }),
    handler: async ({ params, services, actor }) => {
      const ref = project(params.id);
      const hookId = params.hook_id ?? 0;
      // The hook first (403/404), then the limit (`check_rate_limit!(:web_hook_test, scope: [hook.parent, current_user])`).
      const { hook } = await hooks(() => services.hooks.getHook({ project: ref, hookId }));
      const wait = await services.hookRateLimits.throttled('test', hook!.projectId, actor.id);
      if (wait !== undefined) throw throttled(wait);
      const { outcome } = await hooks(() => services.hooks.testHook({ project: ref, hookId, trigger: params.trigger ?? '' }));
      // 2xx from the receiver → `created!`; anything else → `render_api_error!(result.message, 422)`.
      if (outcome?.ok) return { status: 201, body: { message: '201 Created' } };
      throw HttpError.unprocessable(outcome?.message ?? '');
    },
  }),
  route({
    method: 'GET', path: '/projects/:id/hooks/:hook_id/events', access: 'user',
    params: defineParams({
      ...idParams,
      status: p.arrayOf(p.enumOf(EVENT_STATUSES)).commaSeparated(),
      page: paginationParams.page,
      per_page: p.int32().default(20).values(PER_PAGE_1_TO_20),
    }),
    handler: async ({ req, params, services, urls }) => {
      const page = parsePagination(params, { maxPerPage: 20 });
      const res = await hooks(() => services.hooks.listHookEvents({
        project: project(params.id), hookId: params.hook_id ?? 0, statuses: params.status ?? [], page: page.page, perPage: page.perPage,
      }));
      return pageResult(req, urls.base, page, res.events.map(webHookLogEntity), Number(res.total));
    },
  }),
  route({
    method: 'POST', path: '/projects/:id/hooks/:hook_id/events/:hook_log_id/resend', access: 'user',
    params: defineParams({ ...idParams, hook_log_id: p.integer().required() }),
    handler: async ({ params, services, actor }) => {
      const ref = project(params.id);
      const hookId = params.hook_id ?? 0;
      const { hook } = await hooks(() => services.hooks.getHook({ project: ref, hookId }));
      const wait = await services.hookRateLimits.throttled('resend', hook!.projectId, actor.id);
      if (wait !== undefined) throw throttled(wait);
      const { outcome } = await hooks(() => services.hooks.resendHookEvent({ project: ref, hookId, hookLogId: params.hook_log_id ?? 0 }));
      // WebHookService answers success with the receiver's status whatever it is; only a transport error fails (422).
      if (outcome && outcome.status > 0) return { status: 201, body: { response_status: outcome.status } };
      throw HttpError.unprocessable(outcome?.message ?? '');
    },
  }),
];
