import { isIP } from 'node:net';
import { allowlisted, blockedAddressReason, checkUrlSyntax, hostOf, portOf, type Checked } from './url-blocker';
import { resolveAll, vetAddresses, type Resolver, type Vetted } from './resolve';

/**
 * Where webhooks may send (GitLab's `PublicUrlValidator` → `Gitlab::HTTP_V2::UrlBlocker`, reference §14.4): the
 * instance settings (identity's application settings) that decide it. Checked by hooks when a URL is saved and by the
 * webhook-dispatcher before every request and redirect hop.
 */
export interface WebhookUrlSettings {
  /** GitLab's allow_local_requests_from_web_hooks_and_services. */
  allowLocalRequests: boolean;
  /** GitLab's outbound_local_requests_whitelist. */
  allowlist: readonly string[];
  /** GitLab's deny_all_requests_except_allowed. */
  denyAllExceptAllowed: boolean;
}

export const WEBHOOK_SCHEMES = ['http', 'https'] as const;

/** Before DNS: the URL parses and is http(s) ("Only allowed schemes are http, https"). */
export function checkWebhookUrlSyntax(raw: string): Checked {
  return checkUrlSyntax(raw, { schemes: WEBHOOK_SCHEMES });
}

/**
 * Every address the host resolved to: one refused address refuses the URL. Local addresses need the setting or an
 * allowlist entry; with deny_all_requests_except_allowed every address needs an entry.
 */
export function checkWebhookAddresses(url: URL, addresses: readonly string[], settings: WebhookUrlSettings): Checked {
  if (addresses.length === 0) return { ok: false, reason: 'Host cannot be resolved or invalid' };
  const host = hostOf(url);
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

/** A webhook URL (or redirect hop) vetted against the settings, with the address to connect to (pinned). */
export function vetWebhookUrl(url: URL, settings: WebhookUrlSettings, resolve: Resolver = resolveAll): Promise<Vetted> {
  return vetAddresses(url, (addresses) => checkWebhookAddresses(url, addresses, settings), resolve);
}

/**
 * A webhook URL as GitLab checks it when a hook is saved (`AddressableUrlValidator`, `dns_rebind_protection: false`):
 * a host that does not resolve (yet) is accepted, since the URL may only become reachable later; a host that resolves
 * is judged by every address, as at delivery. With deny_all_requests_except_allowed an unresolvable host passes only
 * when the allowlist names it. Nothing is resolved when local targets are allowed and nothing is denied. The
 * dispatcher checks again, resolved and pinned, before every request.
 */
export async function checkWebhookUrlAtSave(url: URL, settings: WebhookUrlSettings, resolve: Resolver = resolveAll): Promise<Checked> {
  if (settings.allowLocalRequests && !settings.denyAllExceptAllowed) return { ok: true, url };
  const host = hostOf(url);
  let addresses: readonly string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    addresses = [];
  }
  if (addresses.length > 0) return checkWebhookAddresses(url, addresses, settings);
  if (!settings.denyAllExceptAllowed || allowlisted(settings.allowlist, host, host, portOf(url))) return { ok: true, url };
  return { ok: false, reason: 'Host cannot be resolved or invalid' };
}
