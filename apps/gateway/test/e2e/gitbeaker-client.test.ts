import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest) against the booted stack. */
describe('@gitbeaker/rest', () => {
  let stack: RunningStack;
  let api: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gitbeaker' });
    api = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('reads the current user and the version', async () => {
    const me = await api.Users.showCurrentUser();
    expect(me).toMatchObject({ username: 'root', is_admin: true });
    const version = await api.Metadata.show();
    expect(version.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('creates a project and reads it back by id and by path', async () => {
    const created = await api.Projects.create({ name: 'Gitbeaker Demo', description: 'made by gitbeaker', visibility: 'internal' });
    expect(created).toMatchObject({ name: 'Gitbeaker Demo', path: 'gitbeaker-demo', path_with_namespace: 'root/gitbeaker-demo', visibility: 'internal' });

    const byId = await api.Projects.show(created.id);
    expect(byId).toMatchObject({ id: created.id, description: 'made by gitbeaker' });
    const byPath = await api.Projects.show('root/gitbeaker-demo');
    expect(byPath.id).toBe(created.id);
  });

  it('pages through projects with its pagination support', async () => {
    for (const n of ['gb-1', 'gb-2', 'gb-3']) await api.Projects.create({ name: n });
    const { data, paginationInfo } = await api.Projects.all({ perPage: 2, maxPages: 1, showExpanded: true, orderBy: 'id', sort: 'asc' });
    expect(data).toHaveLength(2);
    expect(paginationInfo).toMatchObject({ perPage: 2, current: 1, next: 2, previous: null });
    expect(paginationInfo.total).toBeGreaterThanOrEqual(4);
    const all = await api.Projects.all({ perPage: 2 });
    expect(all.length).toBe(paginationInfo.total);
  });

  it('surfaces GitLab errors: 404 for an unknown project, 401 for a bad token', async () => {
    await expect(api.Projects.show(987654321)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
    const bad = new Gitlab({ host: stack.url, token: 'glpat-definitely-not-valid' });
    await expect(bad.Users.showCurrentUser()).rejects.toMatchObject({ cause: { response: { status: 401 } } });
  });

  it('creates a user and a personal access token as admin; the token authenticates', async () => {
    const user = await api.Users.create({ email: 'gb-user@example.com', username: 'gb-user', name: 'GB User', password: 'secret-password-1', skipConfirmation: true });
    expect(user).toMatchObject({ username: 'gb-user', state: 'active' });
    const token = await createPat(stack, user.id);
    const asUser = new Gitlab({ host: stack.url, token });
    expect(await asUser.Users.showCurrentUser()).toMatchObject({ id: user.id, username: 'gb-user' });
    const p = await asUser.Projects.create({ name: 'mine' });
    expect(p.path_with_namespace).toBe('gb-user/mine');
    // root's internal project is visible to any signed-in user, its private one is not (404, never 403)
    await expect(asUser.Projects.show('root/gitbeaker-demo')).resolves.toMatchObject({ visibility: 'internal' });
    await expect(asUser.Projects.show('root/gb-1')).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});

/** POST /users/:id/personal_access_tokens (admin), as documented. */
async function createPat(stack: RunningStack, userId: number): Promise<string> {
  const res = await fetch(`${stack.apiUrl}/users/${userId}/personal_access_tokens`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'e2e', scopes: ['api'] }),
  });
  expect(res.status).toBe(201);
  const body = await res.json();
  expect(body).toMatchObject({ name: 'e2e', scopes: ['api'], active: true, revoked: false, user_id: userId });
  expect(body.token).toMatch(/^glpat-/);
  return body.token;
}
