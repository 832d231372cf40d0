import { hooksV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { deliveryTargets, matchHooks } from '../app/dispatch-queries';
import { listHookEvents, resendHookEvent, testHook } from '../app/deliveries';
import type { HooksDeps } from '../app/deps';
import { eventsOf } from '../app/hook-codec';
import { createHook, deleteHook, getHook, listHooks, updateHook } from '../app/hooks';
import { alertStatusNow } from '../domain/alert-status';
import { EVENT_FLAGS, type EventFlag, type HookChanges } from '../domain/hook-attributes';
import type { HookRow } from '../store/hooks-store';

const camel = (flag: string) => flag.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) as keyof hooksV1.HookEvents;

function toProtoHook(r: HookRow): hooksV1.Hook {
  const flags = eventsOf(r);
  const events: hooksV1.HookEvents = {};
  for (const f of EVENT_FLAGS) {
    const v = flags[f];
    if (v !== null) events[camel(f)] = v;
  }
  return hooksV1.Hook.fromPartial({
    id: r.id, projectId: r.project_id, url: r.url_display, name: r.name, description: r.description, createdAt: r.created_at,
    events, enableSslVerification: r.enable_ssl_verification, pushEventsBranchFilter: r.push_events_branch_filter ?? '',
    branchFilterStrategy: r.branch_filter_strategy, customWebhookTemplate: r.custom_webhook_template ?? '',
    urlVariableKeys: r.url_variable_keys, customHeaderKeys: r.custom_header_keys, alertStatus: alertStatusNow(r.alert_status, r.disabled_until, new Date()),
    disabledUntil: r.disabled_until ?? undefined, updatedAt: r.updated_at,
  });
}

const pairs = (kv: hooksV1.KeyValues | undefined) => (kv ? Object.fromEntries(kv.items.map((i) => [i.key, i.value])) : undefined);

function toChanges(input: hooksV1.HookInput | undefined): HookChanges {
  const i = input ?? {};
  const events: Partial<Record<EventFlag, boolean>> = {};
  for (const f of EVENT_FLAGS) {
    const v = i.events?.[camel(f)];
    if (v !== undefined) events[f] = v;
  }
  return {
    url: i.url, token: i.token, name: i.name, description: i.description, events, enableSslVerification: i.enableSslVerification,
    pushEventsBranchFilter: i.pushEventsBranchFilter, branchFilterStrategy: i.branchFilterStrategy,
    customWebhookTemplate: i.customWebhookTemplate, urlVariables: pairs(i.urlVariables), customHeaders: pairs(i.customHeaders),
  };
}

/** gRPC adapters: decode, call the use case (app/), encode. */
export function hooksService(deps: HooksDeps): AsyncService<hooksV1.HooksServiceServer> {
  return {
    async listHooks(req, ctx) {
      const page = Math.max(1, req.page || 1);
      const perPage = Math.min(100, Math.max(1, req.perPage || 20));
      const { rows, total } = await listHooks(deps, ctx.actor, req.project, page, perPage);
      return { hooks: rows.map(toProtoHook), total };
    },
    async getHook(req, ctx) {
      return { hook: toProtoHook(await getHook(deps, ctx.actor, req.project, req.hookId)) };
    },
    async createHook(req, ctx) {
      return { hook: toProtoHook(await createHook(deps, ctx.actor, req.project, toChanges(req.input))) };
    },
    async updateHook(req, ctx) {
      return { hook: toProtoHook(await updateHook(deps, ctx.actor, req.project, req.hookId, toChanges(req.input))) };
    },
    async deleteHook(req, ctx) {
      const row = await deleteHook(deps, ctx.actor, req.project, req.hookId);
      return { hook: row ? toProtoHook(row) : undefined };
    },
    async testHook(req, ctx) {
      return { outcome: await testHook(deps, ctx.actor, req.project, req.hookId, req.trigger) };
    },
    async listHookEvents(req, ctx) {
      const page = Math.max(1, req.page || 1);
      const perPage = Math.min(20, Math.max(1, req.perPage || 20));
      return listHookEvents(deps, ctx.actor, req.project, req.hookId, { statuses: req.statuses, page, perPage });
    },
    async resendHookEvent(req, ctx) {
      return { outcome: await resendHookEvent(deps, ctx.actor, req.project, req.hookId, req.hookLogId) };
    },
    async matchHooks(req, ctx) {
      return { hookIds: await matchHooks(deps, ctx.actor, req) };
    },
    async getDeliveryTargets(req, ctx) {
      return { targets: await deliveryTargets(deps, ctx.actor, req.hookIds) };
    },
  };
}
