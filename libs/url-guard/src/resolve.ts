import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkAddresses, checkUrlSyntax, hostOf, type Checked, type UrlRules } from './url-blocker';

/** A URL that passed the rules, with the address it must be fetched from (DNS pinned against rebinding). */
export type Vetted = { ok: true; url: URL; host: string; address: string } | { ok: false; reason: string };

/** How a host name becomes addresses (tests inject one: a rebinding DNS, an attacker's answers). */
export type Resolver = (host: string) => Promise<string[]>;

/**
 * The one outbound guard every client uses (imports, mirrors, webhooks, their tests and resends): the host is resolved
 * once (15 s DNS timeout), EVERY address is judged by `check`, and the first one is returned for the caller to connect
 * to (pinned), so a second, rebindable lookup never happens.
 */
export async function vetAddresses(url: URL, check: (addresses: readonly string[]) => Checked, resolve: Resolver = resolveAll): Promise<Vetted> {
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return { ok: false, reason: 'Host cannot be resolved or invalid' };
  }
  const checked = check(addresses);
  if (!checked.ok) return checked;
  return { ok: true, url, host, address: addresses[0]! };
}

/**
 * GitLab's `Gitlab::UrlBlocker.validate!`: syntax, scheme, then every address the host resolves to. Returns the first
 * address to connect to, so the caller pins it (no second, rebindable lookup).
 */
export async function vetUrl(raw: string, rules: UrlRules, resolve: Resolver = resolveAll): Promise<Vetted> {
  const syntax = checkUrlSyntax(raw, rules);
  if (!syntax.ok) return syntax;
  return vetAddresses(syntax.url, (addresses) => checkAddresses(syntax.url, addresses, rules), resolve);
}

/** Every address of a host (A and AAAA), within 15 s. */
export async function resolveAll(host: string): Promise<string[]> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS timeout')), 15_000).unref());
  const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
  return found.map((a) => a.address);
}

/** A URL with its user and password masked, as GitLab shows `import_url` (`Gitlab::UrlSanitizer#masked_url`). */
export function maskedUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username) url.username = '*****';
    if (url.password) url.password = '*****';
    return url.toString();
  } catch {
    return '';
  }
}

/** The URL without credentials, and the credentials apart (to hand git an Authorization header instead of argv). */
export function splitCredentials(raw: string): { url: string; username: string; password: string } {
  const url = new URL(raw);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.toString(), username, password };
}
