import { Gitlab } from '@gitbeaker/rest';
import { startStack, type RunningStack } from '@glp/testing';

/** A real GitLab client (@gitbeaker/rest): star, unstar, starrers, archive and unarchive. */
describe('@gitbeaker/rest stars and archiving', () => {
  let stack: RunningStack;
  let root: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_gb_stars' });
    root = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('stars, lists starrers and unstars; a repeated star is a 304', async () => {
    const project = await root.Projects.create({ name: 'gb-stars', visibility: 'public' });
    const starred = await root.Projects.star(project.id);
    expect(starred).toMatchObject({ id: project.id, star_count: 1 });
    await expect(root.Projects.star(project.id)).rejects.toMatchObject({ cause: { response: { status: 304 } } });

    const starrers = await root.Projects.allStarrers(project.id);
    expect(starrers).toHaveLength(1);
    expect(starrers[0]).toMatchObject({ user: { id: project.creator_id, username: 'root', state: 'active' } });
    expect(Date.parse(starrers[0]!.starred_since)).not.toBeNaN();
    const anonymous = await fetch(`${stack.apiUrl}/projects/${project.id}/starrers`);
    expect([anonymous.status, (await anonymous.json()).length]).toEqual([200, 1]);

    await expect(root.Projects.unstar(project.id)).resolves.toMatchObject({ id: project.id, star_count: 0 });
    await expect(root.Projects.unstar(project.id)).rejects.toMatchObject({ cause: { response: { status: 304 } } });
    await expect(root.Projects.allStarrers(project.id)).resolves.toEqual([]);
    await expect(root.Projects.show(project.id)).resolves.toMatchObject({ star_count: 0 });
  });

  it('archives and unarchives', async () => {
    const project = await root.Projects.create({ name: 'gb-archive' });
    await expect(root.Projects.archive(project.id)).resolves.toMatchObject({ id: project.id, archived: true });
    await expect(root.Projects.archive(project.id)).resolves.toMatchObject({ archived: true });
    await expect(root.Projects.show(project.id)).resolves.toMatchObject({ archived: true });
    await expect(root.Projects.all({ archived: true })).resolves.toEqual([expect.objectContaining({ id: project.id })]);
    await expect(root.Projects.unarchive(project.id)).resolves.toMatchObject({ id: project.id, archived: false });
    await expect(root.Projects.show(project.id)).resolves.toMatchObject({ archived: false });
  });
});
