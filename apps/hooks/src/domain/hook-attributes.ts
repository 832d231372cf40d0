import type { BranchFilterStrategy } from './branch-filter';
import { isBranchFilterStrategy, normaliseBranchFilter } from './branch-filter';

/**
 * A project hook's attributes and GitLab's model rules for them (`app/models/concerns/web_hooks/hook.rb`,
 * `app/models/hooks/project_hook.rb`, `lib/api/helpers/web_hooks_helpers.rb`). Pure: the URL's reachability is checked
 * by the caller (app/url-check.ts).
 */

/** The event flags of a project hook, API names (in the ProjectHook entity's order). */
export const EVENT_FLAGS = [
  'push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events', 'issues_events',
  'confidential_issues_events', 'note_events', 'confidential_note_events', 'pipeline_events', 'wiki_page_events',
  'deployment_events', 'feature_flag_events', 'job_events', 'releases_events', 'milestone_events', 'emoji_events',
  'resource_access_token_events', 'resource_deploy_token_events', 'vulnerability_events',
] as const;
export type EventFlag = (typeof EVENT_FLAGS)[number];

/** The flags as they are stored: every one a boolean, except confidential_note_events which starts null (GitLab). */
export type EventFlags = Record<EventFlag, boolean | null>;

/** Column defaults of `web_hooks` for a project hook: push_events true, confidential_note_events null, others false. */
export function defaultEvents(): EventFlags {
  const flags = Object.fromEntries(EVENT_FLAGS.map((f) => [f, false])) as EventFlags;
  flags.push_events = true;
  flags.confidential_note_events = null;
  return flags;
}

export interface HookState {
  url: string;
  token: string | null;
  name: string;
  description: string;
  events: EventFlags;
  enableSslVerification: boolean;
  pushEventsBranchFilter: string | null;
  branchFilterStrategy: BranchFilterStrategy;
  customWebhookTemplate: string | null;
  urlVariables: Record<string, string>;
  customHeaders: Record<string, string>;
}

export function newHookState(): HookState {
  return {
    url: '', token: null, name: '', description: '', events: defaultEvents(), enableSslVerification: true,
    pushEventsBranchFilter: null, branchFilterStrategy: 'wildcard', customWebhookTemplate: null, urlVariables: {}, customHeaders: {},
  };
}

/** What a create or an edit sent (undefined: not sent). */
export interface HookChanges {
  url?: string;
  token?: string;
  name?: string;
  description?: string;
  events: Partial<Record<EventFlag, boolean>>;
  enableSslVerification?: boolean;
  pushEventsBranchFilter?: string;
  branchFilterStrategy?: string;
  customWebhookTemplate?: string;
  urlVariables?: Record<string, string>;
  customHeaders?: Record<string, string>;
}

/** `update_hook_params`: an edit that sends nothing is GitLab's 400 "No parameters provided". */
export function isEmptyChange(c: HookChanges): boolean {
  return c.url === undefined && c.token === undefined && c.name === undefined && c.description === undefined
    && Object.keys(c.events).length === 0 && c.enableSslVerification === undefined && c.pushEventsBranchFilter === undefined
    && c.branchFilterStrategy === undefined && c.customWebhookTemplate === undefined
    && (c.urlVariables === undefined || Object.keys(c.urlVariables).length === 0)
    && (c.customHeaders === undefined || Object.keys(c.customHeaders).length === 0);
}

// WebHooks::Hook::VARIABLE_REFERENCE_RE (app/validators/json_schemas/web_hooks_url_variables.json: the key pattern).
const VARIABLE_REFERENCE_RE = /\{([A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*)\}/g;
const VARIABLE_KEY_RE = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/;

/** The placeholders a URL uses, in order, without duplicates. */
export function usedVariables(url: string): string[] {
  return [...new Set([...url.matchAll(VARIABLE_REFERENCE_RE)].map((m) => m[1]!))];
}

/** `interpolated_url`: placeholders replaced by their values; undefined when a key is missing. */
export function interpolateUrl(url: string, vars: Record<string, string>): string | undefined {
  let missing = false;
  const out = url.replace(VARIABLE_REFERENCE_RE, (_m, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(vars, name)) {
      missing = true;
      return '';
    }
    return vars[name]!;
  });
  return missing ? undefined : out;
}

/** Ruby's `Array#inspect` of strings: `["a", "b"]` (for "Invalid URL template. Missing keys: [...]"). */
function rubyArray(items: string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;
}

export type FieldErrors = Record<string, string[]>;

export interface Applied {
  state: HookState;
  /** The model's errors by attribute (GitLab names), before the URL's reachability is checked. */
  errors: FieldErrors;
  /** The URL to check against the outbound rules (interpolated when the hook uses variables). */
  urlToCheck: string;
  /** The error attribute of that check: `url`, or `interpolated_url` when the hook has url variables (GitLab). */
  urlAttribute: 'url' | 'interpolated_url';
}

function add(errors: FieldErrors, attr: string, message: string): void {
  (errors[attr] ??= []).push(message);
}

/**
 * Applies a create (`before` = undefined) or an edit to a hook, with the model's callbacks and validations in
 * GitLab's order: `reset_token` (a new url without a token in the same request clears the token),
 * `reset_url_variables` / `reset_custom_headers` on update, `set_branch_filter_nil` for all_branches, then the
 * validations (token without newline, branch filter per strategy, url variables and missing keys, custom headers,
 * template ≤ 4096 characters). The strategy must be one of GitLab's (the caller answers 400 otherwise).
 */
export function applyChanges(before: HookState | undefined, c: HookChanges): Applied {
  const prev = before ?? newHookState();
  const s: HookState = {
    ...prev, events: { ...prev.events }, urlVariables: { ...prev.urlVariables }, customHeaders: { ...prev.customHeaders },
  };
  if (c.url !== undefined) s.url = c.url;
  if (c.token !== undefined) s.token = c.token;
  if (c.name !== undefined) s.name = c.name;
  if (c.description !== undefined) s.description = c.description;
  for (const [flag, v] of Object.entries(c.events) as [EventFlag, boolean][]) s.events[flag] = v;
  if (c.enableSslVerification !== undefined) s.enableSslVerification = c.enableSslVerification;
  if (c.pushEventsBranchFilter !== undefined) s.pushEventsBranchFilter = c.pushEventsBranchFilter;
  if (c.branchFilterStrategy !== undefined && isBranchFilterStrategy(c.branchFilterStrategy)) s.branchFilterStrategy = c.branchFilterStrategy;
  if (c.customWebhookTemplate !== undefined) s.customWebhookTemplate = c.customWebhookTemplate;
  // On PUT the sent variables and headers are merged into the existing ones (update_hook_params); on POST they replace.
  const sentVars = c.urlVariables && Object.keys(c.urlVariables).length > 0 ? c.urlVariables : undefined;
  const sentHeaders = c.customHeaders && Object.keys(c.customHeaders).length > 0 ? c.customHeaders : undefined;
  if (sentVars) s.urlVariables = before ? { ...prev.urlVariables, ...sentVars } : { ...sentVars };
  if (sentHeaders) s.customHeaders = before ? { ...prev.customHeaders, ...sentHeaders } : { ...sentHeaders };

  const urlChanged = before !== undefined && s.url !== prev.url;
  // reset_token: the url changed and no token came with it.
  if (urlChanged && c.token === undefined) s.token = null;
  if (before) {
    const was = interpolateUrl(prev.url, prev.urlVariables);
    // reset_url_variables (GitLab, literally): a changed interpolated URL drops the variables when any old key remains.
    if (Object.keys(prev.urlVariables).length > 0 && interpolateUrl(s.url, s.urlVariables) !== was) {
      const overlapKeys = Object.keys(prev.urlVariables).some((k) => Object.prototype.hasOwnProperty.call(s.urlVariables, k));
      const overlapPairs = Object.entries(prev.urlVariables).some(([k, v]) => s.urlVariables[k] === v);
      if (overlapKeys || (urlChanged && overlapPairs)) s.urlVariables = {};
    }
    // reset_custom_headers: a new interpolated destination does not inherit the headers (even ones sent with it).
    const now = interpolateUrl(s.url, s.urlVariables);
    if (now !== undefined && now !== was) s.customHeaders = {};
  }

  const errors: FieldErrors = {};
  if (s.url === '') add(errors, 'url', "can't be blank");
  if (s.token !== null && s.token.includes('\n')) add(errors, 'token', 'is invalid');
  const filter = normaliseBranchFilter(s.branchFilterStrategy, s.pushEventsBranchFilter);
  s.pushEventsBranchFilter = filter.value;
  for (const m of filter.errors) add(errors, 'push_events_branch_filter', m);
  for (const key of Object.keys(s.urlVariables)) {
    if (!VARIABLE_KEY_RE.test(key) || key.length > 255 || (s.urlVariables[key] ?? '').length > 2048 || s.urlVariables[key] === '') {
      add(errors, 'url_variables', 'must be a valid json schema');
      break;
    }
  }
  const missing = usedVariables(s.url).filter((k) => !Object.prototype.hasOwnProperty.call(s.urlVariables, k));
  if (missing.length > 0) add(errors, 'url', `Invalid URL template. Missing keys: ${rubyArray(missing)}`);
  for (const [key, value] of Object.entries(s.customHeaders)) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key) || key.length > 255 || value.length > 2048) {
      add(errors, 'custom_headers', 'must be a valid json schema');
      break;
    }
  }
  if (s.customWebhookTemplate !== null && [...s.customWebhookTemplate].length > 4096) {
    add(errors, 'custom_webhook_template', 'is too long (maximum is 4096 characters)');
  }
  const hasVars = Object.keys(s.urlVariables).length > 0;
  const urlToCheck = hasVars ? interpolateUrl(s.url, s.urlVariables) ?? s.url : s.url;
  return { state: s, errors, urlToCheck, urlAttribute: hasVars ? 'interpolated_url' : 'url' };
}

/** ActiveModel's `full_messages.to_sentence`: "Token is invalid and Custom webhook template is too long (...)". */
export function fullMessagesSentence(errors: FieldErrors): string {
  // Errors on :base (a plan limit) are full messages of their own, as ActiveModel's `full_message` leaves them.
  const messages = Object.entries(errors).flatMap(([attr, list]) => list.map((m) => (attr === 'base' ? m : `${humanize(attr)} ${m}`)));
  if (messages.length <= 1) return messages[0] ?? '';
  if (messages.length === 2) return `${messages[0]} and ${messages[1]}`;
  return `${messages.slice(0, -1).join(', ')}, and ${messages[messages.length - 1]}`;
}

/** ActiveSupport `humanize` of an attribute name: "custom_webhook_template" → "Custom webhook template". */
function humanize(attr: string): string {
  const words = attr.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
