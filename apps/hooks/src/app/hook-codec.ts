import type { SecretBox } from '@glp/secret-box';
import { EVENT_FLAGS, type EventFlags, type HookState } from '../domain/hook-attributes';
import { isBranchFilterStrategy } from '../domain/branch-filter';
import { maskUrlCredentials } from '../domain/url-display';
import type { HookRecord, HookRow } from '../store/hooks-store';

/** Row (sealed) ↔ the hook's attributes in clear. Only this module opens and seals a hook's secrets. */

function openJson(box: SecretBox, sealed: Buffer | null): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(box.open(sealed)) as Record<string, string>;
}

function sealJson(box: SecretBox, value: Record<string, string>): Buffer | null {
  return Object.keys(value).length === 0 ? null : box.seal(JSON.stringify(value));
}

export function eventsOf(row: HookRow): EventFlags {
  return Object.fromEntries(EVENT_FLAGS.map((f) => [f, row[f]])) as EventFlags;
}

export function stateOf(box: SecretBox, row: HookRow): HookState {
  return {
    url: box.open(row.url_sealed),
    token: row.token_sealed ? box.open(row.token_sealed) : null,
    name: row.name,
    description: row.description,
    events: eventsOf(row),
    enableSslVerification: row.enable_ssl_verification,
    pushEventsBranchFilter: row.push_events_branch_filter,
    branchFilterStrategy: isBranchFilterStrategy(row.branch_filter_strategy) ? row.branch_filter_strategy : 'wildcard',
    customWebhookTemplate: row.custom_webhook_template,
    urlVariables: openJson(box, row.url_variables_sealed),
    customHeaders: openJson(box, row.custom_headers_sealed),
  };
}

export function recordOf(box: SecretBox, s: HookState): HookRecord {
  return {
    urlSealed: box.seal(s.url),
    urlDisplay: maskUrlCredentials(s.url),
    tokenSealed: s.token === null || s.token === '' ? null : box.seal(s.token),
    name: s.name,
    description: s.description,
    events: s.events,
    enableSslVerification: s.enableSslVerification,
    pushEventsBranchFilter: s.pushEventsBranchFilter === '' ? null : s.pushEventsBranchFilter,
    branchFilterStrategy: s.branchFilterStrategy,
    customWebhookTemplate: s.customWebhookTemplate === '' ? null : s.customWebhookTemplate,
    urlVariableKeys: Object.keys(s.urlVariables),
    urlVariablesSealed: sealJson(box, s.urlVariables),
    customHeaderKeys: Object.keys(s.customHeaders),
    customHeadersSealed: sealJson(box, s.customHeaders),
  };
}
