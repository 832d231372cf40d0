import { allowlistErrors, applySettingsChange, initialSettings, isAllowlistEntry, type ApplicationSettings } from './application-settings';

const base: ApplicationSettings = {
  allowLocalRequestsFromWebHooksAndServices: false,
  allowLocalRequestsFromSystemHooks: true,
  outboundLocalRequestsAllowlist: ['example.com'],
  denyAllRequestsExceptAllowed: false,
  deletionAdjournedPeriod: 7,
};

describe('application settings rules', () => {
  it('starts from the environment and GitLab defaults', () => {
    expect(initialSettings({ allowLocalWebhooks: true, outboundAllowlist: [' a.test ', '', '10.0.0.0/8'] })).toEqual({
      allowLocalRequestsFromWebHooksAndServices: true,
      allowLocalRequestsFromSystemHooks: true,
      outboundLocalRequestsAllowlist: ['a.test', '10.0.0.0/8'],
      denyAllRequestsExceptAllowed: false,
      deletionAdjournedPeriod: 7,
    });
    expect(initialSettings({ allowLocalWebhooks: false, outboundAllowlist: [], deletionAdjournedPeriod: 30 }).deletionAdjournedPeriod).toBe(30);
  });

  it('keeps deletion_adjourned_period within GitLab 1..90, in its words', () => {
    expect(applySettingsChange(base, { deletionAdjournedPeriod: 90 })).toEqual({ ok: true, settings: { ...base, deletionAdjournedPeriod: 90 } });
    expect(applySettingsChange(base, { deletionAdjournedPeriod: 0 })).toEqual({ ok: false, errors: { deletion_adjourned_period: ['must be greater than or equal to 1'] } });
    expect(applySettingsChange(base, { deletionAdjournedPeriod: 91 })).toEqual({ ok: false, errors: { deletion_adjourned_period: ['must be less than or equal to 90'] } });
  });

  it('accepts the allowlist forms GitLab documents', () => {
    for (const e of ['example.com', 'gitlab.example.com', 'localhost', 'host.docker.internal', 'example.com:8080', '127.0.0.1',
      '127.0.0.1:8080', '1:0:0:0:0:0:0:1', '::1', '127.0.0.0/8', '1:0:0:0:0:0:0:0/124', '[1:0:0:0:0:0:0:1]:8080', '[::1]']) {
      expect([e, isAllowlistEntry(e)]).toEqual([e, true]);
    }
  });

  it('refuses malformed entries', () => {
    for (const e of ['*.example.com', 'http://example.com', 'example.com:0', 'example.com:70000', '10.0.0.0/33', '::1/129',
      '[example.com]:80', '1.2.3', 'exa mple.com', '-bad.com', 'a..b', 'host:port']) {
      expect([e, isAllowlistEntry(e)]).toEqual([e, false]);
    }
  });

  it('reports GitLab\'s validation messages', () => {
    expect(allowlistErrors(Array.from({ length: 1001 }, (_, i) => `h${i}.test`))).toEqual(['is too long (maximum is 1000 entries)']);
    expect(allowlistErrors(['a'.repeat(256)])).toEqual(['entries cannot be larger than 255 characters']);
    expect(allowlistErrors(['bücher.de'])).toEqual(['unicode domains should use IDNA encoding']);
    expect(allowlistErrors(['<b>x</b>'])).toEqual(['entries cannot contain HTML tags']);
    expect(allowlistErrors(['ok.test', 'bad host'])[0]).toMatch(/invalid entries .*: bad host$/);
    expect(allowlistErrors(Array.from({ length: 1000 }, (_, i) => `h${i}.test`))).toEqual([]);
  });

  it('applies only what was sent; an allowlist sent replaces the list', () => {
    expect(applySettingsChange(base, { denyAllRequestsExceptAllowed: true })).toEqual({ ok: true, settings: { ...base, denyAllRequestsExceptAllowed: true } });
    expect(applySettingsChange(base, { outboundLocalRequestsAllowlist: [] })).toEqual({ ok: true, settings: { ...base, outboundLocalRequestsAllowlist: [] } });
    expect(applySettingsChange(base, { allowLocalRequestsFromWebHooksAndServices: true, outboundLocalRequestsAllowlist: ['x y'] }))
      .toEqual({ ok: false, errors: { outbound_local_requests_whitelist: [expect.stringMatching(/invalid entries/)] } });
  });
});
