import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): keyset listing (it follows Link rel="next"), user and starred listings. */
describe('@gitbeaker/rest project listings', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_listings' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('lists every page with keyset pagination', async () => {
    const created: number[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await root.Projects.create({ name: `gbks-${i}`, visibility: 'public' })).id);
    const all = await root.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2, search: 'gbks' });
    expect(all.map((p) => p.id)).toEqual(created);
    const desc = await root.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'desc', perPage: 2, search: 'gbks' });
    expect(desc.map((p) => p.id)).toEqual([...created].reverse());
    await expect(root.Projects.all({ pagination: 'keyset', orderBy: 'name' } as never)).rejects.toMatchObject({ cause: { response: { status: 405 } } });
  });

  it('lists a user\'s projects and starred projects', async () => {
    const project = await root.Projects.create({ name: 'gb-user-listing', visibility: 'public' });
    const me = await root.Users.showCurrentUser();
    const mine = await root.Users.allProjects(me.id, { search: 'gb-user-listing' });
    expect(mine.map((p) => p.id)).toEqual([project.id]);
    await expect(root.Users.allStarredProjects(me.id)).resolves.toEqual([]);
    await root.Projects.star(project.id);
    const starred = await root.Users.allStarredProjects(me.username as never);
    expect(starred.map((p) => p.id)).toEqual([project.id]);
    await expect(root.Users.allProjects('no-such-user-here' as never)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
