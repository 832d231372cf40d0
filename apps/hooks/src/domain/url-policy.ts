import { allowlisted, blockedAddressReason, checkUrlSyntax, portOf } from '@glp/url-guard';

/**
 * Where a hook may point (GitLab `PublicUrlValidator` → `Gitlab::HTTP_V2::UrlBlocker`, reference §14.4): http/https,
 * then every resolved address against the instance settings (identity's application settings).
 */
export interface HookUrlSettings {
  /** allow_local_requests_from_web_hooks_and_services */
  allowLocalRequests: boolean;
  /** outbound_local_requests_whitelist */
  allowlist: readonly string[];
  /** deny_all_requests_except_allowed */
  denyAllExceptAllowed: boolean;
}

export const WEBHOOK_SCHEMES = ['http', 'https'] as const;

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export function checkHookUrlSyntax(raw: string): UrlCheck {
  return checkUrlSyntax(raw, { schemes: WEBHOOK_SCHEMES });
}

/** One refused address refuses the URL; local addresses need the setting or an allowlist entry. */
export function checkHookAddresses(url: URL, addresses: readonly string[], settings: HookUrlSettings): UrlCheck {
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
  return { ok: true, url };
}

/**
 * The URL with its user and password masked (`http://*****:*****@host/...`), placeholders and everything else kept
 * byte for byte: what the API, events and the delivery log may show of a URL that carries credentials.
 */
export function maskUrlCredentials(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (_m, scheme: string, userinfo: string) =>
    `${scheme}${userinfo.includes(':') ? '*****:*****' : '*****'}@`);
}
