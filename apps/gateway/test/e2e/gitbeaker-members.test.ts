import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): project members and access requests. */
describe('@gitbeaker/rest project members and access requests', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_members' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('adds, lists and removes project members', async () => {
    const project = await root.Projects.create({ name: 'gb-members', visibility: 'public' });
    const user = await root.Users.create({ email: 'gb-dev@example.com', username: 'gb-dev', name: 'GB Dev', password: 'secret-password-1', skipConfirmation: true });
    const member = await root.ProjectMembers.add(project.id, 30, { userId: user.id });
    expect(member).toMatchObject({ id: user.id, username: 'gb-dev', access_level: 30 });
    const all = await root.ProjectMembers.all(project.id);
    expect(all.map((m) => m.username).sort()).toEqual(['gb-dev', 'root']);
    await expect(root.ProjectMembers.show(project.id, user.id)).resolves.toMatchObject({ access_level: 30 });
    await root.ProjectMembers.remove(project.id, user.id);
    await expect(root.ProjectMembers.show(project.id, user.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });

  it('requests access as a user and approves it as the owner', async () => {
    const group = await root.Groups.create('GB Access', 'gb-access', { visibility: 'public' });
    const user = await root.Users.create({ email: 'gb-req@example.com', username: 'gb-req', name: 'GB Req', password: 'secret-password-1', skipConfirmation: true });
    const { token } = await root.UserImpersonationTokens.create(user.id, 'e2e', ['api']).catch(async () =>
      ((await fetch(`${stack.apiUrl}/users/${user.id}/personal_access_tokens`, {
        method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'e2e', scopes: ['api'] }),
      })).json()) as { token: string });
    const requester = new Gitlab({ host: stack.url, token });
    const request = await requester.GroupAccessRequests.request(group.id);
    expect(request).toMatchObject({ id: user.id, username: 'gb-req' });
    const pending = await root.GroupAccessRequests.all(group.id);
    expect(pending.map((r) => r.username)).toEqual(['gb-req']);
    const approved = await root.GroupAccessRequests.approve(group.id, user.id, { accessLevel: 20 });
    expect(approved).toMatchObject({ id: user.id, access_level: 20 });
    await expect(root.GroupMembers.show(group.id, user.id)).resolves.toMatchObject({ access_level: 20 });
    await expect(root.GroupAccessRequests.all(group.id)).resolves.toEqual([]);
  });
});
