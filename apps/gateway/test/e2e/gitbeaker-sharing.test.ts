import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): sharing a project with a group, its users, and member import. */
describe('@gitbeaker/rest project sharing', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_sharing' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shares, lists users and groups, imports members, unshares', async () => {
    const group = await root.Groups.create('GB Share', 'gb-share', { visibility: 'public' });
    const user = await root.Users.create({ email: 'gb-sh@example.com', username: 'gb-sh', name: 'GB Sh', password: 'secret-password-1', skipConfirmation: true });
    await root.GroupMembers.add(group.id, 30, { userId: user.id });
    const project = await root.Projects.create({ name: 'gb-shared', visibility: 'private' });
    await root.Projects.share(project.id, group.id, 20, { expiresAt: '2999-12-31' });
    const shown = await root.Projects.show(project.id);
    expect(shown.shared_with_groups).toEqual([{ group_id: group.id, group_name: 'GB Share', group_full_path: 'gb-share', group_access_level: 20, expires_at: '2999-12-31' }]);
    const users = await root.Projects.allUsers(project.id);
    expect(users.map((u) => u.username).sort()).toEqual(['gb-sh', 'root']);
    const groups = await root.Projects.allGroups(project.id, { withShared: true });
    expect(groups.map((g) => g.id)).toEqual([group.id]);

    const target = await root.Projects.create({ name: 'gb-target', visibility: 'private' });
    await root.ProjectMembers.add(project.id, 30, { userId: user.id });
    await root.Projects.importProjectMembers(target.id, project.id);
    const members = await root.ProjectMembers.all(target.id);
    expect(members.map((m) => m.username).sort()).toEqual(['gb-sh', 'root']);

    await root.Projects.unshare(project.id, group.id);
    expect((await root.Projects.show(project.id)).shared_with_groups).toEqual([]);
    await expect(root.Projects.unshare(project.id, group.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
