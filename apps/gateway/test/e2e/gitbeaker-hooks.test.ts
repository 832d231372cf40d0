import { Gitlab } from '@gitbeaker/rest';
import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';

/** @gitbeaker/rest's ProjectHooks against the stack: add, list, show, edit, remove, as a script using it would. */
describe('@gitbeaker/rest project hooks', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let api: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_gitbeaker_hooks', env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
    api = new Gitlab({ host: stack.url, token: stack.rootToken });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('manages a project hook', async () => {
    const project = await api.Projects.create({ name: 'gb-hooks' });
    const hook = await api.ProjectHooks.add(project.id, `${receiver.url}/gb`, { token: 'gb-secret', tagPushEvents: true, pushEventsBranchFilter: 'main' });
    expect(hook).toMatchObject({ url: `${receiver.url}/gb`, push_events: true, tag_push_events: true, push_events_branch_filter: 'main', project_id: project.id, alert_status: 'executable' });
    expect(hook).not.toHaveProperty('token');

    expect((await api.ProjectHooks.all(project.id)).map((x) => x.id)).toEqual([hook.id]);
    const edited = await api.ProjectHooks.edit(project.id, hook.id, `${receiver.url}/gb2`, { pushEvents: false, releasesEvents: true });
    expect(edited).toMatchObject({ id: hook.id, url: `${receiver.url}/gb2`, push_events: false, releases_events: true, tag_push_events: true });
    expect(await api.ProjectHooks.show(project.id, hook.id)).toMatchObject({ url: `${receiver.url}/gb2`, releases_events: true });

    await api.ProjectHooks.remove(project.id, hook.id);
    expect(await api.ProjectHooks.all(project.id)).toEqual([]);
    await expect(api.ProjectHooks.show(project.id, hook.id)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
