import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): Projects.edit as the owner and as a Maintainer, and its errors. */
describe('@gitbeaker/rest Projects.edit', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;
  let maintainer: InstanceType<typeof Gitlab>;
  let projectId = 0;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_edit' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
    const user = await root.Users.create({ email: 'gb-maint@example.com', username: 'gb-maint', name: 'GB Maint', password: 'secret-password-1', skipConfirmation: true });
    const res = await fetch(`${stack.apiUrl}/users/${user.id}/personal_access_tokens`, {
      method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'e2e', scopes: ['api'] }),
    });
    maintainer = new Gitlab({ host: stack.url, token: ((await res.json()) as { token: string }).token });
    const project = await root.Projects.create({ name: 'Gitbeaker Edit', topics: ['one'] });
    projectId = project.id;
    await root.ProjectMembers.add(projectId, 40, { userId: user.id });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('edits attributes and settings (camelCase options) and reads them back', async () => {
    const edited = await root.Projects.edit(projectId, {
      description: 'edited by gitbeaker', visibility: 'internal', topics: ['two', 'three'], mergeMethod: 'rebase_merge',
      squashOption: 'always', issuesAccessLevel: 'private', onlyAllowMergeIfPipelineSucceeds: true, ciConfigPath: 'ci/pipeline.yml',
    });
    expect(edited).toMatchObject({
      id: projectId, description: 'edited by gitbeaker', visibility: 'internal', topics: ['three', 'two'], merge_method: 'rebase_merge',
      squash_option: 'always', issues_access_level: 'private', only_allow_merge_if_pipeline_succeeds: true, ci_config_path: 'ci/pipeline.yml',
    });
    await expect(root.Projects.show('root/gitbeaker-edit')).resolves.toMatchObject({ id: projectId, visibility: 'internal', topics: ['three', 'two'] });
  });

  it('lets a Maintainer rename (name and path) but not change the visibility', async () => {
    const renamed = await maintainer.Projects.edit(projectId, { name: 'Renamed', path: 'renamed' });
    expect(renamed).toMatchObject({ name: 'Renamed', path: 'renamed', path_with_namespace: 'root/renamed' });
    await expect(maintainer.Projects.show('root/renamed')).resolves.toMatchObject({ id: projectId });
    await expect(maintainer.Projects.edit(projectId, { visibility: 'public' })).rejects.toMatchObject({
      cause: { response: { status: 403 }, description: '403 Forbidden' },
    });
  });

  it('surfaces GitLab errors: 400 with the field errors, 404 for an unknown project', async () => {
    await root.Projects.create({ name: 'taken' });
    await expect(root.Projects.edit(projectId, { path: 'taken' })).rejects.toMatchObject({ cause: { response: { status: 400 } } });
    const res = await fetch(`${stack.apiUrl}/projects/${projectId}`, {
      method: 'PUT', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ path: 'taken' }),
    });
    expect(await res.json()).toEqual({ message: { path: ['has already been taken'] } });
    await expect(root.Projects.edit(987654321, { description: 'x' })).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
