import { isIP } from 'node:net';
import type { FieldErrors } from '@glp/service-kit';

/** The application settings this platform honours (GitLab's ApplicationSetting columns of the same names). */
export interface ApplicationSettings {
  allowLocalRequestsFromWebHooksAndServices: boolean;
  allowLocalRequestsFromSystemHooks: boolean;
  outboundLocalRequestsAllowlist: string[];
  denyAllRequestsExceptAllowed: boolean;
  /** Days between marking a project for deletion and its removal. */
  deletionAdjournedPeriod: number;
}

/** What an update sends: absent fields are left as they are; an allowlist sent (even empty) replaces the list. */
export type ApplicationSettingsChange = Partial<ApplicationSettings>;

/** GitLab's column name, which its validation errors are keyed by (`render_validation_error!`). */
export const ALLOWLIST_FIELD = 'outbound_local_requests_whitelist';
/** app/models/application_setting.rb: `length: { maximum: 1_000 }`. */
export const MAX_ALLOWLIST_ENTRIES = 1000;
/** app/models/application_setting.rb: `deletion_adjourned_period` numericality 1..90; its column default 7. */
export const MIN_DELETION_ADJOURNED_PERIOD = 1;
export const MAX_DELETION_ADJOURNED_PERIOD = 90;
export const DEFAULT_DELETION_ADJOURNED_PERIOD = 7;
/** app/validators/qualified_domain_array_validator.rb. */
const MAX_ENTRY_LENGTH = 255;

/**
 * The settings a new row starts with (GitLab's `create_from_defaults`): the environment's defaults for the outbound
 * rules (ALLOW_LOCAL_WEBHOOKS, OUTBOUND_ALLOWLIST) and the deletion delay (DELETION_ADJOURNED_PERIOD, else GitLab's 7),
 * GitLab's defaults for the rest (`allow_local_requests_from_system_hooks` true, `deny_all_requests_except_allowed` false).
 */
export function initialSettings(
  env: { allowLocalWebhooks: boolean; outboundAllowlist: readonly string[]; deletionAdjournedPeriod?: number },
): ApplicationSettings {
  return {
    allowLocalRequestsFromWebHooksAndServices: env.allowLocalWebhooks,
    allowLocalRequestsFromSystemHooks: true,
    outboundLocalRequestsAllowlist: normalizeAllowlist(env.outboundAllowlist),
    denyAllRequestsExceptAllowed: false,
    deletionAdjournedPeriod: env.deletionAdjournedPeriod ?? DEFAULT_DELETION_ADJOURNED_PERIOD,
  };
}

/** GitLab's numericality validation of `deletion_adjourned_period`, in its words. */
export function deletionAdjournedPeriodErrors(days: number): string[] {
  if (!Number.isInteger(days)) return ['must be an integer'];
  if (days < MIN_DELETION_ADJOURNED_PERIOD) return [`must be greater than or equal to ${MIN_DELETION_ADJOURNED_PERIOD}`];
  if (days > MAX_DELETION_ADJOURNED_PERIOD) return [`must be less than or equal to ${MAX_DELETION_ADJOURNED_PERIOD}`];
  return [];
}

/** Entries trimmed, blanks dropped (GitLab's `strings_to_array`), order kept. */
export function normalizeAllowlist(entries: readonly string[]): string[] {
  return entries.map((e) => e.trim()).filter((e) => e !== '');
}

/** The settings after a change, or the field errors GitLab answers with 400 `{"message": {field: [...]}}`. */
export function applySettingsChange(
  current: ApplicationSettings,
  change: ApplicationSettingsChange,
): { ok: true; settings: ApplicationSettings } | { ok: false; errors: FieldErrors } {
  const allowlist = change.outboundLocalRequestsAllowlist === undefined
    ? current.outboundLocalRequestsAllowlist
    : normalizeAllowlist(change.outboundLocalRequestsAllowlist);
  const errors: FieldErrors = {};
  if (change.outboundLocalRequestsAllowlist !== undefined) {
    const list = allowlistErrors(allowlist);
    if (list.length) errors[ALLOWLIST_FIELD] = list;
  }
  if (change.deletionAdjournedPeriod !== undefined) {
    const period = deletionAdjournedPeriodErrors(change.deletionAdjournedPeriod);
    if (period.length) errors.deletion_adjourned_period = period;
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return {
    ok: true,
    settings: {
      allowLocalRequestsFromWebHooksAndServices: change.allowLocalRequestsFromWebHooksAndServices ?? current.allowLocalRequestsFromWebHooksAndServices,
      allowLocalRequestsFromSystemHooks: change.allowLocalRequestsFromSystemHooks ?? current.allowLocalRequestsFromSystemHooks,
      outboundLocalRequestsAllowlist: allowlist,
      denyAllRequestsExceptAllowed: change.denyAllRequestsExceptAllowed ?? current.denyAllRequestsExceptAllowed,
      deletionAdjournedPeriod: change.deletionAdjournedPeriod ?? current.deletionAdjournedPeriod,
    },
  };
}

/**
 * GitLab's validations of the allowlist, in its order and words (app/models/application_setting.rb length check, then
 * app/validators/qualified_domain_array_validator.rb), then the form of each entry: a host name, `host:port`, an IP
 * address, a CIDR range, or `[IPv6]:port` (the forms Gitlab::UrlBlockers::UrlAllowlist understands; GitLab silently
 * ignores other entries, we refuse them so an administrator sees the typo).
 */
export function allowlistErrors(entries: readonly string[]): string[] {
  const errors: string[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES) errors.push(`is too long (maximum is ${MAX_ALLOWLIST_ENTRIES} entries)`);
  if (entries.some((e) => e.length > MAX_ENTRY_LENGTH)) errors.push('entries cannot be larger than 255 characters');
  // eslint-disable-next-line no-control-regex
  if (!entries.every((e) => /^[\x00-\x7f]*$/.test(e))) errors.push('unicode domains should use IDNA encoding');
  if (entries.some((e) => /<[^>]*>/.test(e))) errors.push('entries cannot contain HTML tags');
  if (errors.length) return errors;
  const bad = entries.filter((e) => !isAllowlistEntry(e));
  if (bad.length) errors.push(`contains invalid entries (expected host, host:port, IP address, CIDR range or [IPv6]:port): ${bad.slice(0, 5).join(', ')}`);
  return errors;
}

/** Whether an entry has one of the accepted forms. */
export function isAllowlistEntry(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return isIP(bracketed[1]!) === 6 && (bracketed[2] === undefined || isPort(bracketed[2]));
  if (entry.includes('/')) return isCidr(entry);
  if ((entry.match(/:/g) ?? []).length > 1) return isIP(entry) === 6;
  const hostPort = /^([^:]+)(?::(\d+))?$/.exec(entry);
  if (!hostPort) return false;
  if (hostPort[2] !== undefined && !isPort(hostPort[2])) return false;
  return isIP(hostPort[1]!) === 4 || isHostName(hostPort[1]!);
}

function isPort(s: string): boolean {
  const n = Number(s);
  return /^\d{1,5}$/.test(s) && n >= 1 && n <= 65535;
}

function isCidr(entry: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (!m) return false;
  const family = isIP(m[1]!);
  const bits = Number(m[2]);
  return (family === 4 && bits <= 32) || (family === 6 && bits <= 128);
}

/** RFC 1123 labels (underscores tolerated, as in Docker service names); the last label not all digits (not an IP). */
function isHostName(host: string): boolean {
  if (host.length > 253) return false;
  const labels = host.split('.');
  if (!labels.every((l) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(l))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}
