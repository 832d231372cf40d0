import { allowlisted, blockedAddressReason, checkUrlSyntax, portOf } from '@glp/url-guard';

/** The instance settings that decide where hooks may send (identity's application settings). */
export interface HookUrlSettings {
  /** GitLab's allow_local_requests_from_web_hooks_and_services. */
  allowLocalRequests: boolean;
  /** GitLab's outbound_local_requests_whitelist. */
  allowlist: string[];
  /** GitLab's deny_all_requests_except_allowed. */
  denyAllExceptAllowed: boolean;
}

export const DEFAULT_HOOK_URL_SETTINGS: HookUrlSettings = Object.freeze({ allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false }) as HookUrlSettings;

export const WEBHOOK_SCHEMES = ['http', 'https'] as const;

export type UrlDecision = { ok: true } | { ok: false; reason: string };

/** Gitlab::UrlBlocker for webhooks, before DNS: the URL parses and is http(s). */
export function checkHookUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  return checkUrlSyntax(raw, { schemes: WEBHOOK_SCHEMES });
}

/**
 * Gitlab::UrlBlocker for every address the host resolved to: one refused address refuses the URL. Local addresses
 * need the setting or an allowlist entry; with deny_all_requests_except_allowed every address needs an entry.
 */
export function checkResolved(url: URL, addresses: readonly string[], settings: HookUrlSettings): UrlDecision {
  if (addresses.length === 0) return { ok: false, reason: 'Host cannot be resolved or invalid' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(url);
  for (const address of addresses) {
    const listed = allowlisted(settings.allowlist, host, address, port);
    if (settings.denyAllExceptAllowed && !listed) return { ok: false, reason: 'Requests to hosts and IP addresses not on the Allow List are denied' };
    if (settings.allowLocalRequests || listed) continue;
    const reason = blockedAddressReason(address);
    if (reason) return { ok: false, reason };
  }
  return { ok: true };
}
