import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): fork, list forks, link and unlink a fork relation. */
describe('@gitbeaker/rest forks', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_forks' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('forks into a group, lists the forks, and links / unlinks an existing project', async () => {
    const upstream = await root.Projects.create({ name: 'gb-upstream', visibility: 'public' });
    const group = await root.Groups.create('GB Forks', 'gb-forks', { visibility: 'public' });
    const forked = await root.Projects.fork(upstream.id, { namespacePath: 'gb-forks', name: 'gb-fork', path: 'gb-fork', mrDefaultTargetSelf: true });
    expect(forked).toMatchObject({
      path_with_namespace: 'gb-forks/gb-fork', import_status: 'scheduled', mr_default_target_self: true,
      namespace: { id: group.id }, forked_from_project: { id: upstream.id, path_with_namespace: 'root/gb-upstream' },
    });
    const forks = await root.Projects.allForks(upstream.id, { orderBy: 'id', sort: 'asc' });
    expect(forks.map((p) => p.id)).toEqual([forked.id]);
    await expect(root.Projects.show(upstream.id)).resolves.toMatchObject({ forks_count: 1 });

    const loose = await root.Projects.create({ name: 'gb-loose' });
    await root.Projects.createForkRelationship(loose.id, upstream.id);
    await expect(root.Projects.show(loose.id)).resolves.toMatchObject({ forked_from_project: { id: upstream.id } });
    await expect(root.Projects.createForkRelationship(loose.id, upstream.id)).rejects.toMatchObject({ cause: { response: { status: 409 } } });
    await root.Projects.removeForkRelationship(loose.id);
    await expect(root.Projects.show(loose.id)).resolves.not.toHaveProperty('forked_from_project');
    await expect(root.Projects.allForks(upstream.id)).resolves.toHaveLength(1);
  });
});
