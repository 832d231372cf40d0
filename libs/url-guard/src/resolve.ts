import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkAddresses, checkUrlSyntax, type UrlRules } from './url-blocker';

/** A URL that passed the rules, with the address it must be fetched from (DNS pinned against rebinding). */
export type Vetted = { ok: true; url: URL; address: string } | { ok: false; reason: string };

/**
 * GitLab's `Gitlab::UrlBlocker.validate!`: syntax, scheme, then every address the host resolves to (15 s DNS
 * timeout). Returns the first address to connect to, so the caller pins it (no second, rebindable lookup).
 */
export async function vetUrl(raw: string, rules: UrlRules, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<Vetted> {
  const syntax = checkUrlSyntax(raw, rules);
  if (!syntax.ok) return syntax;
  const host = syntax.url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return { ok: false, reason: 'Host cannot be resolved or invalid' };
  }
  const checked = checkAddresses(syntax.url, addresses, rules);
  if (!checked.ok) return checked;
  return { ok: true, url: syntax.url, address: addresses[0]! };
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
