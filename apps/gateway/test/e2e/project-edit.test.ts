import { startStack, type RunningStack } from '@glp/testing';

/** GitLab's `at_least_one_of` for PUT /projects/:id (CE list, then EE's additions; three names are in both). */
const NOTHING_TO_UPDATE = 'allow_merge_on_skipped_pipeline, analytics_access_level, autoclose_referenced_issues, auto_devops_enabled, '
  + 'auto_devops_deploy_strategy, auto_cancel_pending_pipelines, build_git_strategy, build_timeout, builds_access_level, ci_config_path, '
  + 'ci_default_git_depth, ci_allow_fork_pipelines_to_run_in_parent_project, ci_id_token_sub_claim_components, ci_forward_deployment_enabled, '
  + 'ci_forward_deployment_rollback_allowed, ci_separated_caches, container_registry_access_level, container_expiration_policy_attributes, '
  + 'default_branch, description, emails_disabled, emails_enabled, forking_access_level, issues_access_level, lfs_enabled, '
  + 'merge_pipelines_enabled, merge_requests_access_level, merge_requests_template, merge_trains_enabled, merge_method, '
  + 'merge_request_title_regex, merge_request_title_regex_description, name, only_allow_merge_if_all_discussions_are_resolved, '
  + 'only_allow_merge_if_pipeline_succeeds, package_registry_access_level, pages_access_level, path, printing_merge_request_link_enabled, '
  + 'public_builds, public_jobs, remove_source_branch_after_merge, repository_access_level, request_access_enabled, '
  + 'resolve_outdated_diff_discussions, restrict_user_defined_variables, show_diff_preview_in_email, security_and_compliance_access_level, '
  + 'squash_option, shared_runners_enabled, group_runners_enabled, resource_group_default_process_mode, snippets_access_level, tag_list, '
  + 'topics, visibility, wiki_access_level, avatar, suggestion_commit_message, merge_commit_template, squash_commit_template, '
  + 'issue_branch_template, repository_storage, packages_enabled, service_desk_enabled, keep_latest_artifact, mr_default_target_self, '
  + 'enforce_auth_checks_on_uploads, releases_access_level, environments_access_level, feature_flags_access_level, '
  + 'infrastructure_access_level, monitor_access_level, model_experiments_access_level, model_registry_access_level, '
  + 'warn_about_potentially_unwanted_characters, ci_pipeline_variables_minimum_override_role, ci_push_repository_for_job_token_allowed, '
  + 'ci_delete_pipelines_in_seconds, max_artifacts_size, issues_enabled, jobs_enabled, merge_requests_enabled, wiki_enabled, '
  + 'snippets_enabled, container_registry_enabled, auto_duo_code_review_enabled, allow_pipeline_trigger_approve_deployment, '
  + 'only_allow_merge_if_all_status_checks_passed, approvals_before_merge, external_authorization_classification_label, '
  + 'fallback_approvals_required, import_url, issues_template, mirror, merge_requests_template, merge_pipelines_enabled, '
  + 'merge_trains_enabled, merge_trains_skip_train_allowed, requirements_access_level, prevent_merge_without_jira_issue, '
  + 'ci_restrict_pipeline_cancellation_role, web_based_commit_signing_enabled, spp_repository_pipeline_access '
  + 'are missing, at least one parameter must be provided';

/**
 * PUT /projects/:id over HTTP (REST → gateway → projects): alice owns the internal group "acme" and its private project
 * "acme/app"; bob is a Maintainer and carol a Developer of the project; dave is outside.
 */
describe('editing projects (PUT /projects/:id) through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number };
  let group: { id: number };

  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const form = (fields: Record<string, string>) => ({
    method: 'PUT', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
  });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    expect(res.headers.get('content-type')).toBe('application/json');
    return JSON.parse(text);
  };
  const edit = async (body: unknown, as: string | null = 'alice', status = 200, id: number | string = project.id) =>
    expectJson(await api(`/projects/${id}`, { ...json('PUT', body), as }), status);

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_edit' });
    tokens.root = stack.rootToken;
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: name.toUpperCase(), email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    group = await expectJson(await api('/groups', { ...json('POST', { name: 'Acme', path: 'acme', visibility: 'internal' }), as: 'alice' }), 201);
    project = await expectJson(await api('/projects', { ...json('POST', { name: 'app', namespace_id: group.id, topics: 'go' }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.bob, access_level: 40 }), as: 'alice' }), 201);
    await expectJson(await api(`/projects/${project.id}/members`, { ...json('POST', { user_id: ids.carol, access_level: 30 }), as: 'alice' }), 201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('lets a Maintainer edit: 200 with the Project entity reflecting the change, and GET shows it', async () => {
    const body = await expectJson(await api(`/projects/${project.id}`, {
      ...form({ name: 'App Two', description: 'Edited', topics: 'rust, go', merge_method: 'ff', issues_enabled: 'false', build_timeout: '7200' }),
      as: 'bob',
    }), 200);
    expect(body).toMatchObject({
      id: project.id, name: 'App Two', path: 'app', name_with_namespace: 'Acme / App Two', description: 'Edited',
      topics: ['go', 'rust'], tag_list: ['go', 'rust'], merge_method: 'ff', issues_enabled: false, issues_access_level: 'disabled',
      build_timeout: 7200, visibility: 'private',
    });
    expect(body).not.toHaveProperty('permissions'); // Entities::Project, as GitLab answers an edit
    expect(body._links).not.toHaveProperty('issues');
    const read = await expectJson(await api(`/projects/${project.id}`, { as: 'carol' }), 200);
    expect(read).toMatchObject({ name: 'App Two', description: 'Edited', topics: ['go', 'rust'], merge_method: 'ff', issues_enabled: false });
    expect(Date.parse(read.updated_at)).toBeGreaterThan(Date.parse(read.created_at));
  });

  it('replaces topics (tag_list only without topics) and keeps deprecated fields in sync with their successors', async () => {
    expect(await edit({ tag_list: ['ops'] })).toMatchObject({ topics: ['ops'], tag_list: ['ops'] });
    expect(await edit({ topics: ['api', 'web'], tag_list: ['ignored'] })).toMatchObject({ topics: ['api', 'web'], tag_list: ['api', 'web'] });
    expect(await edit({ topics: '' })).toMatchObject({ topics: [], tag_list: [] });
    expect(await edit({ issues_access_level: 'enabled', jobs_enabled: false, container_registry_enabled: false })).toMatchObject({
      issues_enabled: true, issues_access_level: 'enabled', jobs_enabled: false, builds_access_level: 'disabled',
      container_registry_enabled: false, container_registry_access_level: 'disabled',
    });
    expect(await edit({ emails_disabled: true, public_builds: false })).toMatchObject({ emails_disabled: true, emails_enabled: false, public_jobs: false });
    expect(await edit({ emails_enabled: true, public_jobs: true })).toMatchObject({ emails_disabled: false, emails_enabled: true, public_jobs: true });
    expect(await edit({
      ci_default_git_depth: 10, ci_forward_deployment_enabled: false, keep_latest_artifact: false, restrict_user_defined_variables: true,
      service_desk_enabled: true, mr_default_target_self: true, suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
      merge_commit_template: 'Merge %{source_branch}', squash_commit_template: '%{title}',
    })).toMatchObject({
      ci_default_git_depth: 10, ci_forward_deployment_enabled: false, keep_latest_artifact: false, restrict_user_defined_variables: true,
      service_desk_enabled: true, suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
      merge_commit_template: 'Merge %{source_branch}', squash_commit_template: '%{title}',
    });
  });

  it("answers Grape's and the model's 400s", async () => {
    expect(await edit({}, 'alice', 400)).toEqual({ error: NOTHING_TO_UPDATE });
    expect(await edit({ visibility: 'secret' }, 'alice', 400)).toEqual({ error: 'visibility does not have a valid value' });
    expect(await edit({ merge_method: 'squash', build_timeout: 'long' }, 'alice', 400)).toEqual({
      error: 'merge_method does not have a valid value, build_timeout is invalid',
    });
    expect(await edit({ ci_default_git_depth: 2 ** 31 }, 'alice', 400)).toEqual({ error: 'ci_default_git_depth is invalid' });
    expect(await edit({ description: 'd', only_mirror_protected_branches: true, mirror_branch_regex: 'x' }, 'alice', 400)).toEqual({
      error: 'only_mirror_protected_branches, mirror_branch_regex are mutually exclusive',
    });
    const other = await expectJson(await api('/projects', { ...json('POST', { name: 'other', namespace_id: group.id }), as: 'alice' }), 201);
    expect(await edit({ name: 'app two', path: 'APP' }, 'alice', 400, other.id)).toEqual({
      message: { name: ['has already been taken'], path: ['has already been taken'] },
    });
    expect(await edit({ name: '', path: 'tree' }, 'alice', 400)).toEqual({ message: { name: ["can't be blank"], path: ['tree is a reserved name'] } });
    expect(await edit({ repository_access_level: 'private', merge_requests_access_level: 'enabled', builds_access_level: 'private' }, 'alice', 400)).toEqual({
      message: { 'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'] },
    });
    expect(await edit({ build_timeout: 60 }, 'alice', 400)).toEqual({ message: { build_timeout: ['is too short (minimum is 10 minutes)'] } });
    expect(await edit({ default_branch: 'develop' }, 'alice', 400)).toEqual({ message: { base: ["Could not change HEAD: branch 'develop' does not exist"] } });
    expect(await edit({ default_branch: 'main' })).toMatchObject({ default_branch: 'main' });
  });

  it('refuses Developers (403), Maintainers sending a visibility (403), hides the project from outsiders (404), needs a token (401)', async () => {
    expect(await edit({ description: 'nope' }, 'carol', 403)).toEqual({ message: '403 Forbidden' });
    expect(await edit({ visibility: 'private' }, 'bob', 403)).toEqual({ message: '403 Forbidden' });
    expect(await edit({ ci_delete_pipelines_in_seconds: 3600 }, 'bob', 403)).toEqual({ message: '403 Forbidden' }); // Owner only
    expect(await edit({ description: 'nope' }, 'dave', 404)).toEqual({ message: '404 Project Not Found' });
    expect(await edit({ description: 'nope' }, 'dave', 404, 'acme%2Fapp')).toEqual({ message: '404 Project Not Found' });
    expect(await edit({ description: 'nope' }, null, 401)).toEqual({ message: '401 Unauthorized' });
    expect(await edit({ description: 'nope' }, 'alice', 404, 987654)).toEqual({ message: '404 Project Not Found' });
    expect((await expectJson(await api(`/projects/${project.id}`, { as: 'carol' }), 200)).description).toBe('Edited');
  });

  it('lets the Owner change visibility, within the group; a path change moves the project', async () => {
    expect(await edit({ visibility: 'public' }, 'alice', 400)).toEqual({ message: { visibility_level: ['public is not allowed in a internal group.'] } });
    expect(await edit({ visibility: 'internal' })).toMatchObject({ visibility: 'internal' });
    // internal: dave now reads it, but may not edit it
    expect(await edit({ description: 'nope' }, 'dave', 403)).toEqual({ message: '403 Forbidden' });
    const moved = await edit({ path: 'app-two' }, 'bob');
    expect(moved).toMatchObject({ path: 'app-two', path_with_namespace: 'acme/app-two', web_url: `${stack.url}/acme/app-two` });
    expect(await expectJson(await api('/projects/acme%2Fapp-two', { as: 'dave' }), 200)).toMatchObject({ id: project.id });
    // The old path is a redirect route now (GitLab `find_project!`): 301 to the project's id (project-redirects.test.ts).
    const old = await api('/projects/acme%2Fapp', { as: 'dave', redirect: 'manual' });
    expect([old.status, old.headers.get('location')]).toEqual([301, `${stack.apiUrl}/projects/${project.id}`]);
    expect(await edit({ ci_delete_pipelines_in_seconds: 3600 }, 'alice')).toMatchObject({ id: project.id });
    expect(await edit({ visibility: 'private' }, 'root')).toMatchObject({ visibility: 'private' }); // the administrator
  });

  it("accepts what GitLab's params declare though the service keeps no such field (unchanged in the answer)", async () => {
    const before = await expectJson(await api(`/projects/${project.id}`, { as: 'alice' }), 200);
    const after = await edit({ fallback_approvals_required: 2, prevent_merge_without_jira_issue: true, merge_trains_skip_train_allowed: true });
    expect(after).toMatchObject({ id: project.id, name: before.name, updated_at: before.updated_at });
    expect(await edit({ avatar: 'not-a-file' }, 'alice', 400)).toEqual({ error: 'avatar is invalid' });
  });
});
