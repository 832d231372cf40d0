import { IMPORT_SCHEMES } from './url-blocker';
import { REFUSED_HOST_FORMS } from './attack-matrix';
import { vetUrl, type Resolver } from './resolve';
import { vetWebhookUrl, type WebhookUrlSettings } from './webhook-rules';

const PUBLIC = '93.184.216.34';
/** An attacker's DNS: every name it is asked about is "public". A numeric host must never reach it. */
const liar: Resolver = async () => [PUBLIC];
const importRules = { schemes: IMPORT_SCHEMES, allowLocalNetwork: false, allowlist: [] as string[] };
const hookSettings: WebhookUrlSettings = { allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false };

/** Every outbound path's first step, for one URL: imports/mirrors (http, https, git) and webhooks (http, https). */
const paths = [
  ...(['http', 'https', 'git'] as const).map((scheme) => ({
    path: `import/mirror ${scheme}://`,
    vet: (host: string, resolve: Resolver) => vetUrl(`${scheme}://${host}/group/repo.git`, importRules, resolve),
  })),
  ...(['http', 'https'] as const).map((scheme) => ({
    path: `webhook ${scheme}://`,
    vet: (host: string, resolve: Resolver) => vetWebhookUrl(new URL(`${scheme}://${host}/hook`), hookSettings, resolve),
  })),
];

describe('the outbound guard, one matrix for every path', () => {
  describe.each(paths)('$path', ({ vet }) => {
    it.each(REFUSED_HOST_FORMS)('refuses $name ($host)', async ({ host, reason }) => {
      expect(await vet(host, liar)).toEqual({ ok: false, reason });
    });

    it('refuses a name whose addresses include a local one (every address is checked)', async () => {
      expect(await vet('mixed.example', async () => [PUBLIC, '10.0.0.5'])).toEqual({ ok: false, reason: 'Requests to the local network are not allowed' });
    });

    it('resolves once and pins the address it checked (a rebinding DNS answers 127.0.0.1 the second time)', async () => {
      let asked = 0;
      const rebinding: Resolver = async () => (asked++ === 0 ? [PUBLIC] : ['127.0.0.1']);
      expect(await vet('rebind.example', rebinding)).toMatchObject({ ok: true, host: 'rebind.example', address: PUBLIC });
      expect(asked).toBe(1);
    });

    it('lets a public address through', async () => {
      expect(await vet('8.8.8.8', liar)).toMatchObject({ ok: true, address: '8.8.8.8' });
    });
  });

  it('normalizes a git:// host in another IPv4 form to the address it names, before any DNS', async () => {
    // WHATWG URL normalizes these forms only for special schemes (http, https); git:// keeps them as written.
    expect(new URL('git://0x7f000001/x').hostname).toBe('0x7f000001');
    expect(await vetUrl('git://0x7f000001/x.git', { ...importRules, allowlist: ['127.0.0.1'] }, liar)).toMatchObject({ ok: true, address: '127.0.0.1' });
  });

  it('matches allowlist entries against IPv4-mapped IPv6 addresses in either notation', async () => {
    const rules = { ...importRules, allowlist: ['127.0.0.0/8'] };
    expect(await vetUrl('http://[::ffff:7f00:1]:8080/x.git', rules, liar)).toMatchObject({ ok: true });
    expect(await vetUrl('http://[::ffff:127.0.0.1]:8080/x.git', rules, liar)).toMatchObject({ ok: true });
  });
});
