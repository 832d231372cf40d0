import { allowlisted, blockedAddressReason, checkAddresses, checkUrlSyntax, IMPORT_SCHEMES } from './url-blocker';
import { maskedUrl, splitCredentials, vetUrl } from './resolve';

const rules = { schemes: IMPORT_SCHEMES, allowLocalNetwork: false, allowlist: [] as string[] };

describe('Gitlab::UrlBlocker rules', () => {
  it('checks syntax and scheme with GitLab’s words', () => {
    expect(checkUrlSyntax('ftp://example.com/x.git', rules)).toEqual({ ok: false, reason: 'Only allowed schemes are http, https, git' });
    expect(checkUrlSyntax('not a url', rules)).toEqual({ ok: false, reason: 'URI is invalid' });
    expect(checkUrlSyntax('https://example.com/x\n.git', rules)).toEqual({ ok: false, reason: 'URI is invalid' });
    expect(checkUrlSyntax('https://example.com/x.git', rules).ok).toBe(true);
    expect(checkUrlSyntax('git://example.com/x.git', rules).ok).toBe(true);
  });

  it('names why an address is local', () => {
    expect(blockedAddressReason('0.0.0.0')).toBe('Requests to localhost are not allowed');
    expect(blockedAddressReason('127.0.0.1')).toBe('Requests to loopback addresses are not allowed');
    expect(blockedAddressReason('::1')).toBe('Requests to loopback addresses are not allowed');
    expect(blockedAddressReason('::ffff:127.0.0.1')).toBe('Requests to loopback addresses are not allowed');
    for (const ip of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fd00::1']) expect(blockedAddressReason(ip)).toBe('Requests to the local network are not allowed');
    expect(blockedAddressReason('169.254.169.254')).toBe('Requests to the link local network are not allowed');
    expect(blockedAddressReason('fe80::1')).toBe('Requests to the link local network are not allowed');
    expect(blockedAddressReason('100.64.0.1')).toBe('Requests to the shared address space are not allowed');
    for (const ip of ['8.8.8.8', '172.32.0.1', '2001:db8::1']) expect(blockedAddressReason(ip)).toBeUndefined();
  });

  it('lets the allowlist (host, host:port, IP, CIDR) and the local-network setting through', () => {
    expect(allowlisted(['127.0.0.1'], 'localhost', '127.0.0.1', 80)).toBe(true);
    expect(allowlisted(['localhost:8080'], 'localhost', '127.0.0.1', 80)).toBe(false);
    expect(allowlisted(['localhost:8080'], 'localhost', '127.0.0.1', 8080)).toBe(true);
    expect(allowlisted(['10.0.0.0/8'], 'git.internal', '10.2.3.4', 443)).toBe(true);
    expect(allowlisted(['[::1]:80'], 'x', '::1', 80)).toBe(true);
    const url = new URL('http://git.internal/x.git');
    expect(checkAddresses(url, ['10.0.0.5'], { allowLocalNetwork: false, allowlist: [] })).toEqual({ ok: false, reason: 'Requests to the local network are not allowed' });
    expect(checkAddresses(url, ['10.0.0.5'], { allowLocalNetwork: true, allowlist: [] }).ok).toBe(true);
    expect(checkAddresses(url, ['8.8.8.8', '10.0.0.5'], { allowLocalNetwork: false, allowlist: [] }).ok).toBe(false); // any blocked address blocks
  });

  it('vets with resolution, and refuses what does not resolve', async () => {
    expect(await vetUrl('https://example.test/x.git', rules, async () => ['93.184.216.34'])).toMatchObject({ ok: true, address: '93.184.216.34' });
    expect(await vetUrl('https://evil.test/x.git', rules, async () => ['127.0.0.1'])).toEqual({ ok: false, reason: 'Requests to loopback addresses are not allowed' });
    expect(await vetUrl('https://nowhere.test/x.git', rules, async () => { throw new Error('ENOTFOUND'); })).toEqual({ ok: false, reason: 'Host cannot be resolved or invalid' });
  });

  it('masks and splits credentials', () => {
    expect(maskedUrl('https://user:s3cret@example.com/x.git')).toBe('https://*****:*****@example.com/x.git');
    expect(splitCredentials('https://oauth2:t%40k@example.com/x.git')).toEqual({ url: 'https://example.com/x.git', username: 'oauth2', password: 't@k' });
  });
});
