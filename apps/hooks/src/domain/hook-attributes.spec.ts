import { applyChanges, fullMessagesSentence, interpolateUrl, isEmptyChange, newHookState, type HookChanges } from './hook-attributes';
import { createRefused, updateRefused } from './hook-errors';
import { maskUrlCredentials } from './url-display';

const change = (c: Partial<HookChanges>): HookChanges => ({ events: {}, ...c });

describe('hook attributes (web_hooks/hook.rb, web_hooks_helpers.rb)', () => {
  it('defaults when only url is sent: push_events on, confidential_note_events null, ssl on, wildcard', () => {
    const { state, errors } = applyChanges(undefined, change({ url: 'http://example.com/h' }));
    expect(errors).toEqual({});
    expect(state.events.push_events).toBe(true);
    expect(state.events.tag_push_events).toBe(false);
    expect(state.events.confidential_note_events).toBeNull();
    expect(state.enableSslVerification).toBe(true);
    expect(state.branchFilterStrategy).toBe('wildcard');
    expect(state.pushEventsBranchFilter).toBeNull();
  });

  it('a token with a newline is invalid: create says the sentence, update the field hash', () => {
    const { errors } = applyChanges(undefined, change({ url: 'http://example.com', token: 'a\nb' }));
    expect(errors).toEqual({ token: ['is invalid'] });
    expect(createRefused(errors).fields).toEqual({ error: ['Token is invalid'] });
    expect(updateRefused(errors).fields).toEqual({ token: ['is invalid'] });
  });

  it('url errors win over filter errors, which win over the rest', () => {
    const errors = { url: ['x'], push_events_branch_filter: ['y'], token: ['is invalid'] };
    expect(createRefused(errors).fields).toEqual({ error: ['Invalid url given'] });
    expect(createRefused({ push_events_branch_filter: ['y'], token: ['z'] }).fields).toEqual({ error: ['Invalid branch filter given'] });
    expect(fullMessagesSentence({ token: ['is invalid'], custom_webhook_template: ['is too long (maximum is 4096 characters)'] }))
      .toBe('Token is invalid and Custom webhook template is too long (maximum is 4096 characters)');
  });

  it('a template over 4096 characters is refused', () => {
    expect(applyChanges(undefined, change({ url: 'http://e.com', customWebhookTemplate: 'x'.repeat(4097) })).errors)
      .toEqual({ custom_webhook_template: ['is too long (maximum is 4096 characters)'] });
    expect(applyChanges(undefined, change({ url: 'http://e.com', customWebhookTemplate: 'x'.repeat(4096) })).errors).toEqual({});
  });

  it('url variables: missing keys are a url error; the interpolated url is what gets vetted', () => {
    const missing = applyChanges(undefined, change({ url: 'http://e.com/{a}/{b}', urlVariables: { a: '1' } }));
    expect(missing.errors).toEqual({ url: ['Invalid URL template. Missing keys: ["b"]'] });
    const ok = applyChanges(undefined, change({ url: 'http://e.com/{a}?t={tok}', urlVariables: { a: '1', tok: 's3' } }));
    expect(ok.errors).toEqual({});
    expect(ok.urlToCheck).toBe('http://e.com/1?t=s3');
    expect(ok.urlAttribute).toBe('interpolated_url');
    expect(interpolateUrl('http://x/{a}', {})).toBeUndefined();
  });

  it('changing the url without a token clears the token; with one keeps it; other edits keep it', () => {
    const before = { ...newHookState(), url: 'http://e.com/1', token: 'secret' };
    expect(applyChanges(before, change({ url: 'http://e.com/2' })).state.token).toBeNull();
    expect(applyChanges(before, change({ url: 'http://e.com/2', token: 'new' })).state.token).toBe('new');
    expect(applyChanges(before, change({ name: 'n' })).state.token).toBe('secret');
    expect(applyChanges(before, change({ url: 'http://e.com/1' })).state.token).toBe('secret'); // same url
  });

  it('PUT merges url variables and custom headers; a new destination drops the headers', () => {
    const before = { ...newHookState(), url: 'http://e.com/{a}', urlVariables: { a: '1' }, customHeaders: { 'X-A': 'a' } };
    const merged = applyChanges(before, change({ customHeaders: { 'X-B': 'b' } }));
    expect(merged.state.customHeaders).toEqual({ 'X-A': 'a', 'X-B': 'b' });
    expect(merged.state.urlVariables).toEqual({ a: '1' });
    const moved = applyChanges(before, change({ url: 'http://other.com/{a}' }));
    expect(moved.state.urlVariables).toEqual({}); // GitLab's reset_url_variables: old keys would be reused
    expect(moved.errors.url).toBeDefined(); // ... so the template misses its key (invalid, nothing saved)
    const plain = { ...newHookState(), url: 'http://e.com/h', customHeaders: { 'X-A': 'a' } };
    expect(applyChanges(plain, change({ url: 'http://other.com/h' })).state.customHeaders).toEqual({});
    expect(applyChanges(plain, change({ name: 'renamed' })).state.customHeaders).toEqual({ 'X-A': 'a' });
  });

  it('an edit that sends nothing is empty; all_branches clears the filter', () => {
    expect(isEmptyChange(change({}))).toBe(true);
    expect(isEmptyChange(change({ urlVariables: {} }))).toBe(true);
    expect(isEmptyChange(change({ events: { push_events: false } }))).toBe(false);
    const before = { ...newHookState(), url: 'http://e.com', pushEventsBranchFilter: 'main' };
    expect(applyChanges(before, change({ branchFilterStrategy: 'all_branches' })).state.pushEventsBranchFilter).toBeNull();
  });

  it('masks credentials in a URL and nothing else', () => {
    expect(maskUrlCredentials('https://user:p@ss@example.com/{a}?x=1')).toBe('https://*****:*****@example.com/{a}?x=1');
    expect(maskUrlCredentials('http://token@example.com/h')).toBe('http://*****@example.com/h');
    expect(maskUrlCredentials('http://example.com/{a}@x')).toBe('http://example.com/{a}@x');
  });
});
