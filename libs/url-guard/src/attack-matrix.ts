/**
 * Local targets written the ways an attacker writes them, with the refusal each must get. Every outbound client's tests
 * run this one table (the guard's unit tests, git remotes, webhook redirects), so a form refused in one path is refused
 * in all of them.
 */
export interface RefusedHostForm {
  /** What the form is. */
  name: string;
  /** The host as written in a URL's authority (IPv6 in brackets). */
  host: string;
  /** GitLab's message for it. */
  reason: string;
}

const LOOPBACK = 'Requests to loopback addresses are not allowed';
const LOCAL_NETWORK = 'Requests to the local network are not allowed';
const LINK_LOCAL = 'Requests to the link local network are not allowed';

export const REFUSED_HOST_FORMS: readonly RefusedHostForm[] = [
  { name: 'IPv4 loopback', host: '127.0.0.1', reason: LOOPBACK },
  { name: 'IPv4 loopback, another address of 127/8', host: '127.3.2.1', reason: LOOPBACK },
  { name: 'unspecified IPv4 (this host)', host: '0.0.0.0', reason: 'Requests to localhost are not allowed' },
  { name: 'IPv6 loopback', host: '[::1]', reason: LOOPBACK },
  { name: 'unspecified IPv6', host: '[::]', reason: 'Requests to localhost are not allowed' },
  { name: 'RFC 1918 10/8', host: '10.0.0.5', reason: LOCAL_NETWORK },
  { name: 'RFC 1918 172.16/12', host: '172.31.255.254', reason: LOCAL_NETWORK },
  { name: 'RFC 1918 192.168/16', host: '192.168.1.1', reason: LOCAL_NETWORK },
  { name: 'IPv6 unique local', host: '[fd00::5]', reason: LOCAL_NETWORK },
  { name: 'cloud metadata (link-local)', host: '169.254.169.254', reason: LINK_LOCAL },
  { name: 'IPv6 link-local', host: '[fe80::1]', reason: LINK_LOCAL },
  { name: 'shared address space', host: '100.64.0.1', reason: 'Requests to the shared address space are not allowed' },
  { name: 'IPv4-mapped IPv6 loopback (dotted)', host: '[::ffff:127.0.0.1]', reason: LOOPBACK },
  { name: 'IPv4-mapped IPv6 metadata (hex)', host: '[::ffff:a9fe:a9fe]', reason: LINK_LOCAL },
  { name: 'IPv4-mapped IPv6 private (long form)', host: '[0:0:0:0:0:ffff:10.0.0.5]', reason: LOCAL_NETWORK },
  { name: 'IPv4-compatible IPv6 loopback', host: '[::127.0.0.1]', reason: LOOPBACK },
  { name: 'NAT64 metadata', host: '[64:ff9b::169.254.169.254]', reason: LINK_LOCAL },
  { name: 'decimal loopback', host: '2130706433', reason: LOOPBACK },
  { name: 'decimal metadata', host: '2852039166', reason: LINK_LOCAL },
  { name: 'octal loopback', host: '0177.0.0.1', reason: LOOPBACK },
  { name: 'hex loopback', host: '0x7f000001', reason: LOOPBACK },
  { name: 'dotted hex private', host: '0xa.0x0.0x0.0x5', reason: LOCAL_NETWORK },
  { name: 'short-form loopback', host: '127.1', reason: LOOPBACK },
  { name: 'loopback with a trailing dot', host: '127.0.0.1.', reason: LOOPBACK },
];
