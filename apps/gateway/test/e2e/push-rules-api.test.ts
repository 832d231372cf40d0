import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * Project push rules over HTTP (spec 4.8, reference §16.1–16.2, GitLab `ee/lib/api/project_push_rule.rb`): CRUD as a
 * Maintainer, GitLab's refusals for a Developer (403), anonymous (401), hidden projects (404), bad input (400, nothing
 * written), a second POST (422), DELETE twice (204 both times: idempotent, spec 4.8); and @gitbeaker/rest's ProjectPushRules.
 */
describe('project push rules through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const api = async (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? tokens.maint : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    const res = await fetch(`${stack.apiUrl}${path}`, { ...init, headers });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const json = (method: string, body: unknown, as?: string | null) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), as });
  const rule = (project = ids.app) => `/projects/${project}/push_rule`;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_push_rules_api' });
    tokens.root = stack.rootToken;
    for (const name of ['maint', 'dev', 'outsider']) {
      const user = await api('/users', json('POST', { username: name, name, email: `${name}@example.com`, password: `${name}-password-1` }, 'root'));
      ids[name] = user.body.id;
      tokens[name] = (await api(`/users/${user.body.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] }, 'root'))).body.token;
    }
    ids.app = (await api('/projects', json('POST', { name: 'app', visibility: 'private' }))).body.id;
    expect((await api(`/projects/${ids.app}/members`, json('POST', { user_id: ids.dev, access_level: 30 }))).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('GET without a rule answers the JSON null', async () => {
    const res = await api(rule());
    expect([res.status, res.text]).toEqual([200, 'null']);
  });

  it('creates (201), shows, edits (200) and deletes (204) with GitLab\'s entity', async () => {
    const created = await api(rule(), json('POST', { commit_message_regex: '^(feat|fix): ', deny_delete_tag: true, max_file_size: 5 }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number), project_id: ids.app, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      commit_message_regex: '^(feat|fix): ', commit_message_negative_regex: null, branch_name_regex: null, deny_delete_tag: true,
      member_check: false, prevent_secrets: false, author_email_regex: null, file_name_regex: null, max_file_size: 5,
      commit_committer_check: false, commit_committer_name_check: false, reject_unsigned_commits: false, reject_non_dco_commits: false,
    });
    expect(Object.keys(created.body).slice(0, 4)).toEqual(['id', 'project_id', 'created_at', 'commit_message_regex']);
    expect((await api(rule())).body).toEqual(created.body);

    const again = await api(rule(), json('POST', { member_check: true }));
    expect([again.status, again.body]).toEqual([422, { message: 'Project push rule exists' }]);

    const edited = await api(rule(), json('PUT', { prevent_secrets: true, branch_name_regex: '^(feature|hotfix)\\/', max_file_size: 0 }));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: created.body.id, prevent_secrets: true, branch_name_regex: '^(feature|hotfix)\\/', max_file_size: 0, deny_delete_tag: true, commit_message_regex: '^(feat|fix): ' });

    const deleted = await api(rule(), { method: 'DELETE' });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    const twice = await api(rule(), { method: 'DELETE' });
    expect([twice.status, twice.text]).toEqual([204, '']);
    expect((await api(rule())).text).toBe('null');
    const editMissing = await api(rule(), json('PUT', { member_check: true }));
    expect([editMissing.status, editMissing.body]).toEqual([404, { message: '404 Push Rule Not Found' }]);
  });

  it('refuses bad input with 400 and writes nothing', async () => {
    const bad = await api(rule(), json('POST', { deny_delete_tag: true, file_name_regex: '(', commit_message_regex: 'x'.repeat(512) }));
    expect([bad.status, bad.body]).toEqual([400, { message: { commit_message_regex: ['is too long (maximum is 511 characters)'], file_name_regex: ['not valid RE2 syntax: missing ): ('] } }]);
    const negative = await api(rule(), json('POST', { max_file_size: -1 }));
    expect([negative.status, negative.body]).toEqual([400, { message: { max_file_size: ['must be greater than or equal to 0'] } }]);
    const huge = await api(rule(), json('POST', { max_file_size: 2 ** 31 }));
    expect([huge.status, huge.body]).toEqual([400, { error: 'max_file_size is invalid' }]);
    const none = await api(rule(), json('POST', {}));
    expect([none.status, none.body]).toEqual([400, {
      error: 'deny_delete_tag, member_check, prevent_secrets, commit_message_regex, commit_message_negative_regex, branch_name_regex, author_email_regex, file_name_regex, max_file_size, commit_committer_check, commit_committer_name_check, reject_unsigned_commits, reject_non_dco_commits are missing, at least one parameter must be provided',
    }]);
    expect((await api(rule())).text).toBe('null');

    expect((await api(rule(), json('POST', { branch_name_regex: '^main$' }))).status).toBe(201);
    const badEdit = await api(rule(), json('PUT', { branch_name_regex: '(?=lookahead)', member_check: true }));
    expect([badEdit.status, badEdit.body]).toEqual([400, { message: { branch_name_regex: ['not valid RE2 syntax: invalid perl operator: (?='] } }]);
    expect((await api(rule())).body).toMatchObject({ branch_name_regex: '^main$', member_check: false });
    const emptyEdit = await api(rule(), json('PUT', {}));
    expect(emptyEdit.status).toBe(400);
    expect((await api(rule(), { method: 'DELETE' })).status).toBe(204);
  });

  it('is for Maintainers: a Developer is 403, an outsider 404, anonymous 401', async () => {
    expect((await api(rule(), json('POST', { deny_delete_tag: true }))).status).toBe(201);
    for (const [method, body] of [['GET'], ['POST', { member_check: true }], ['PUT', { member_check: true }], ['DELETE']] as const) {
      const init = body ? json(method, body, 'dev') : { method, as: 'dev' };
      const res = await api(rule(), init);
      expect([method, res.status, res.body]).toEqual([method, 403, { message: '403 Forbidden' }]);
      const hidden = await api(rule(), body ? json(method, body, 'outsider') : { method, as: 'outsider' });
      expect([method, hidden.status, hidden.body]).toEqual([method, 404, { message: '404 Project Not Found' }]);
      const anon = await api(rule(), body ? json(method, body, null) : { method, as: null });
      expect([method, anon.status, anon.body]).toEqual([method, 401, { message: '401 Unauthorized' }]);
    }
    expect((await api(rule())).body).toMatchObject({ deny_delete_tag: true, member_check: false });
    // an administrator may, and by full path too
    expect((await api(rule(encodeURIComponent('maint/app')), { as: 'root' })).body).toMatchObject({ project_id: ids.app });
    expect((await api(rule('999999'))).status).toBe(404);
    expect((await api(rule(), { method: 'DELETE' })).status).toBe(204);
  });

  it('works with @gitbeaker/rest ProjectPushRules', async () => {
    const gb = new Gitlab({ host: stack.url, token: tokens.maint! });
    const created = await gb.ProjectPushRules.create(ids.app!, { memberCheck: true, authorEmailRegex: '@example\\.com$', maxFileSize: 10 });
    expect(created).toMatchObject({ project_id: ids.app, member_check: true, author_email_regex: '@example\\.com$', max_file_size: 10 });
    expect(await gb.ProjectPushRules.show(ids.app!)).toMatchObject({ id: created.id });
    expect(await gb.ProjectPushRules.edit(ids.app!, { preventSecrets: true })).toMatchObject({ prevent_secrets: true, member_check: true });
    await gb.ProjectPushRules.remove(ids.app!);
    expect(await gb.ProjectPushRules.remove(ids.app!, { showExpanded: true })).toMatchObject({ status: 204 });
  });
});
