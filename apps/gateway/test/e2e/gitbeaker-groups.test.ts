import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest) creating and reading groups and group members. */
describe('@gitbeaker/rest groups and group members', () => {
  let stack: RunningStack;
  let api: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_groups' });
    api = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a group and a subgroup and reads them back by id and by path', async () => {
    const group = await api.Groups.create('Gitbeaker Group', 'gb-group', { description: 'made by gitbeaker', visibility: 'internal' });
    expect(group).toMatchObject({ name: 'Gitbeaker Group', path: 'gb-group', full_path: 'gb-group', visibility: 'internal', parent_id: null });
    const sub = await api.Groups.create('Nested', 'nested', { parentId: group.id });
    expect(sub).toMatchObject({ full_path: 'gb-group/nested', parent_id: group.id });

    await expect(api.Groups.show(group.id)).resolves.toMatchObject({ id: group.id, description: 'made by gitbeaker' });
    await expect(api.Groups.show('gb-group/nested')).resolves.toMatchObject({ id: sub.id, full_name: 'Gitbeaker Group / Nested' });
    await expect(api.Groups.show(987654321)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });

  it('adds a member and lists the members, including inherited ones', async () => {
    const user = await api.Users.create({ email: 'gb-member@example.com', username: 'gb-member', name: 'GB Member', password: 'secret-password-1', skipConfirmation: true });
    const member = await api.GroupMembers.add('gb-group', 30, { userId: user.id });
    expect(member).toMatchObject({ id: user.id, username: 'gb-member', access_level: 30 });

    const direct = await api.GroupMembers.all('gb-group');
    expect(direct.map((m) => m.username).sort()).toEqual(['gb-member', 'root']);
    const inherited = await api.GroupMembers.all('gb-group/nested', { includeInherited: true });
    expect(inherited.find((m) => m.username === 'gb-member')).toMatchObject({ access_level: 30 });

    await expect(api.GroupMembers.add('gb-group', 30, { userId: user.id })).rejects.toMatchObject({ cause: { response: { status: 409 } } });
  });
});
