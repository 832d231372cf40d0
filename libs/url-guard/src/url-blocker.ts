import { BlockList, isIP } from 'node:net';

/** Why a URL is refused, worded as GitLab's `Gitlab::UrlBlocker` (`lib/gitlab/url_blocker.rb`). */
export type BlockReason = string;

export interface UrlRules {
  /** Allowed schemes, without ':' (imports: http, https, git; webhooks: http, https). */
  schemes: readonly string[];
  /** GitLab's `allow_local_requests_from_web_hooks_and_services` / `..._from_system_hooks`: loopback and private targets allowed. */
  allowLocalNetwork: boolean;
  /** GitLab's `outbound_local_requests_whitelist`: hosts, IPs or CIDRs (optionally `:port`) exempt from the local-network rule. */
  allowlist: readonly string[];
}

export type Checked = { ok: true; url: URL } | { ok: false; reason: BlockReason };

/** The schemes GitLab accepts for repository imports and mirrors. */
export const IMPORT_SCHEMES = ['http', 'https', 'git'] as const;

/**
 * The checks that need no DNS: the URL parses, has no CR/LF, an allowed scheme and a plausible host. GitLab words the
 * scheme refusal "Only allowed schemes are http, https, git".
 */
export function checkUrlSyntax(raw: string, rules: Pick<UrlRules, 'schemes'>): Checked {
  if (/[\r\n]/.test(raw)) return { ok: false, reason: 'URI is invalid' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'URI is invalid' };
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!rules.schemes.includes(scheme)) return { ok: false, reason: `Only allowed schemes are ${rules.schemes.join(', ')}` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host || !(isIP(host) || /^[a-z0-9]/i.test(host))) return { ok: false, reason: 'Hostname or IP address invalid' };
  return { ok: true, url };
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
const unspecified = new BlockList();
unspecified.addAddress('0.0.0.0', 'ipv4');
unspecified.addAddress('::', 'ipv6');
const local = new BlockList();
for (const [net, bits] of [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) local.addSubnet(net, bits, 'ipv4');
local.addSubnet('fc00::', 7, 'ipv6'); // unique local
local.addSubnet('fec0::', 10, 'ipv6'); // site-local (deprecated)
const linkLocal = new BlockList();
linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
linkLocal.addSubnet('fe80::', 10, 'ipv6');
const shared = new BlockList();
shared.addSubnet('100.64.0.0', 10, 'ipv4');
const broadcast = new BlockList();
broadcast.addAddress('255.255.255.255', 'ipv4');

/**
 * An IPv6 address that carries an IPv4 address is checked as that IPv4 address: IPv4-mapped (`::ffff:10.0.0.1`, also
 * written `::ffff:a00:1`), IPv4-compatible (`::10.0.0.1`, deprecated, still routed by some stacks) and the NAT64
 * well-known prefix (`64:ff9b::10.0.0.1`, which a NAT64 gateway forwards to the IPv4 address).
 */
function normalize(ip: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (isIP(ip) !== 6) return { address: ip, family: 'ipv4' };
  let canonical: string;
  try {
    canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1); // WHATWG's IPv6 serialization: compressed, hex
  } catch {
    return { address: ip, family: 'ipv6' };
  }
  const embedded = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!embedded) return { address: canonical, family: 'ipv6' };
  const [high, low] = [parseInt(embedded[1]!, 16), parseInt(embedded[2]!, 16)];
  return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
}

/**
 * The host of a URL as the checks and the connection use it: without IPv6 brackets, and an IPv4 address written in
 * another form (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, a trailing dot) as its dotted
 * quad. WHATWG URL does that for http(s) only; `git://` hosts stay as written, and DNS must never be asked about them.
 */
export function hostOf(url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || !/^[0-9a-fx.]+$/i.test(host)) return host;
  try {
    const asHttp = new URL(`http://${host}/`).hostname;
    return isIP(asHttp) ? asHttp : host;
  } catch {
    return host;
  }
}

/** Why an address may not be reached without the local-network permission (undefined: it may). */
export function blockedAddressReason(ip: string): BlockReason | undefined {
  const { address, family } = normalize(ip);
  if (unspecified.check(address, family)) return 'Requests to localhost are not allowed';
  if (loopback.check(address, family)) return 'Requests to loopback addresses are not allowed';
  if (local.check(address, family)) return 'Requests to the local network are not allowed';
  if (linkLocal.check(address, family)) return 'Requests to the link local network are not allowed';
  if (shared.check(address, family)) return 'Requests to the shared address space are not allowed';
  if (broadcast.check(address, family)) return 'Requests to the limited broadcast address are not allowed';
  return undefined;
}

/** An allowlist entry: `host`, `host:port`, `1.2.3.4`, `[::1]:8080`, `::1`, `10.0.0.0/8`. */
function parseEntry(entry: string): { target: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { target: bracketed[1]!, port: bracketed[2] ? Number(bracketed[2]) : undefined };
  if ((entry.match(/:/g) ?? []).length > 1) return { target: entry }; // a bare IPv6 address or network
  const hostPort = /^([^:]+)(?::(\d+))?$/.exec(entry);
  return { target: hostPort?.[1] ?? entry, port: hostPort?.[2] ? Number(hostPort[2]) : undefined };
}

/** Whether the allowlist exempts this host (by name) or address (by IP or CIDR), with an optional port. */
export function allowlisted(allowlist: readonly string[], host: string, address: string, port: number): boolean {
  const a = normalize(address);
  return allowlist.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (!entry) return false;
    const { target, port: entryPort } = parseEntry(entry);
    if (entryPort !== undefined && entryPort !== port) return false;
    if (target.includes('/')) {
      const [net, bits] = target.split('/');
      const family = isIP(net!) === 6 ? 'ipv6' : 'ipv4';
      if (a.family !== family) return false;
      const list = new BlockList();
      try {
        list.addSubnet(net!, Number(bits), family);
      } catch {
        return false;
      }
      return list.check(a.address, family);
    }
    return target === host.toLowerCase() || target === a.address;
  });
}

/** The default port of a scheme (for the allowlist's `host:port` entries). */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'git:' ? 9418 : 80;
}

/** Checks every address a host resolved to: one blocked address blocks the URL (as GitLab validates all of them). */
export function checkAddresses(url: URL, addresses: readonly string[], rules: Pick<UrlRules, 'allowLocalNetwork' | 'allowlist'>): Checked {
  if (addresses.length === 0) return { ok: false, reason: 'Host cannot be resolved or invalid' };
  if (rules.allowLocalNetwork) return { ok: true, url };
  const host = hostOf(url);
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason && !allowlisted(rules.allowlist, host, address, portOf(url))) return { ok: false, reason };
  }
  return { ok: true, url };
}
