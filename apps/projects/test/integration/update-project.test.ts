import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { decodeEnvelope, EventTypes, unpackPayload } from '@glp/events';
import { identityV1, projectsV1 } from '@glp/proto';
import { DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, rejection, uniqueName } from '@glp/testing';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const maintainer = user(2, 'maint');
const developer = user(3, 'dev');
const stranger = user(4, 'stranger');
const admin = user(9, 'root', true);
const USERS: Actor[] = [owner, maintainer, developer, stranger, admin];
const GROUP_ID = 500;
const { VISIBILITY_PRIVATE: PRIVATE, VISIBILITY_INTERNAL: INTERNAL, VISIBILITY_PUBLIC: PUBLIC, VISIBILITY_UNSPECIFIED: UNCHANGED } = projectsV1.Visibility;

describe('editing a project (UpdateProject) against PostgreSQL', () => {
  const schema = uniqueName('it_update');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let appId = 0;
  let otherId = 0;
  // identity as seen from projects: an internal group "team" (id 500) where owner is Owner; users by id or username.
  let groupVisibility = 'internal';
  const identity = {
    getNamespace: jest.fn(async () => ({
      namespace: identityV1.Namespace.fromPartial({ id: GROUP_ID, name: 'Team', path: 'team', kind: 'group', fullPath: 'team', version: 1 }),
      callerAccessLevel: 50,
    })),
    getGroup: jest.fn(async () => ({ group: identityV1.Group.fromPartial({ id: GROUP_ID, path: 'team', fullPath: 'team', visibility: groupVisibility }) })),
    getUserGroupAccess: jest.fn(async (r: identityV1.GetUserGroupAccessRequest) => ({
      groups: r.userId === owner.id ? [{ groupId: GROUP_ID, accessLevel: 50 }] : [],
    })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = USERS.find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username, state: 'active', projectsLimit: 100000 }), view: 'admin' };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
  const update = (id: number, req: Partial<projectsV1.UpdateProjectRequest>, as: Actor) =>
    service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: sel(id), ...req }), ctx(as));
  const updatedEvents = async (id: number) => {
    const { rows } = await pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE event_type = $1 AND message_key = $2 ORDER BY id', [
      EventTypes.ProjectUpdated.typeName, `project:${id}`,
    ]);
    return rows.map((r) => unpackPayload(decodeEnvelope(r.payload), EventTypes.ProjectUpdated));
  };

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, { id: GROUP_ID, name: 'Team', path: 'team', kind: 'group', full_path: 'team', parent_id: null, owner_id: null, owner_username: null, owner_name: null, owner_state: null, version: 1 });
    const create = async (name: string) =>
      (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: GROUP_ID, visibility: PRIVATE, topics: ['go'] }), ctx(owner))).project!.id;
    appId = await create('app');
    otherId = await create('other');
    await service.addProjectMember({ project: sel(appId), userId: maintainer.id, username: '', accessLevel: 40, expiresAt: '' }, ctx(owner));
    await service.addProjectMember({ project: sel(appId), userId: developer.id, username: '', accessLevel: 30, expiresAt: '' }, ctx(owner));
  });
  afterAll(async () => {
    await pool.end();
    await dropSchemas(schema);
  });

  it('applies a Maintainer edit in one transaction with ProjectUpdated naming the changed attributes', async () => {
    const { project } = await update(appId, {
      name: 'App Two', path: 'app-two', description: 'edited', topics: ['Rust', 'go, rust'], setTopics: true,
      settings: { mergeMethod: 'ff', issuesAccessLevel: 'private', lfsEnabled: true, ciDefaultGitDepth: 5 },
    }, maintainer);
    expect(project).toMatchObject({
      id: appId, name: 'App Two', path: 'app-two', description: 'edited', topics: ['go', 'Rust'], callerAccessLevel: 40,
      settings: { mergeMethod: 'ff', issuesAccessLevel: 'private', lfsEnabled: true, ciDefaultGitDepth: 5 },
    });
    expect(project!.updatedAt!.getTime()).toBeGreaterThan(project!.createdAt!.getTime());
    const read = await service.getProject({ selector: { $case: 'fullPath', value: 'team/app-two' } }, ctx(developer));
    expect(read.project).toMatchObject({ id: appId, name: 'App Two', settings: { mergeMethod: 'ff' } });
    expect(await updatedEvents(appId)).toEqual([{
      projectId: appId, pathWithNamespace: 'team/app-two', visibility: 'private', archived: false, markedForDeletionOn: '', repositoryStorage: 'default',
      changed: ['name', 'path', 'description', 'topics', 'issues_access_level', 'merge_method', 'ci_default_git_depth'], // settings in proto order
    }]);
    // only the sent settings that differ from the effective ones are stored
    const stored = await pool.query('SELECT settings FROM projects WHERE id = $1', [appId]);
    expect(stored.rows[0].settings).toEqual({ mergeMethod: 'ff', issuesAccessLevel: 'private', ciDefaultGitDepth: 5 });
  });

  it('writes nothing and outboxes nothing when nothing changes', async () => {
    const before = (await pool.query('SELECT updated_at FROM projects WHERE id = $1', [appId])).rows[0].updated_at;
    const { project } = await update(appId, {
      name: 'App Two', description: 'edited', topics: ['RUST', 'Go'], setTopics: true, defaultBranch: 'main', settings: { mergeMethod: 'ff', wikiAccessLevel: 'enabled' },
    }, maintainer);
    expect(project).toMatchObject({ name: 'App Two', topics: ['go', 'Rust'] });
    expect((await pool.query('SELECT updated_at FROM projects WHERE id = $1', [appId])).rows[0].updated_at).toEqual(before);
    expect(await updatedEvents(appId)).toHaveLength(1);
  });

  it('refuses a name or path another project of the namespace has (case-insensitive), keeps its own in another case', async () => {
    const taken = await rejection(update(otherId, { name: 'APP TWO', path: 'App-Two' }, owner));
    expect([taken.kind, taken.fields]).toEqual(['invalid', { name: ['has already been taken'], path: ['has already been taken'] }]);
    const { project } = await update(otherId, { name: 'Other', path: 'Other' }, owner);
    expect(project).toMatchObject({ name: 'Other', path: 'Other' });
    const bad = await rejection(update(otherId, { name: '', path: 'new', settings: { buildTimeout: 5, repositoryAccessLevel: 'disabled' } }, owner));
    expect(bad.fields).toEqual({
      name: ["can't be blank"],
      path: ['new is a reserved name'],
      build_timeout: ['is too short (minimum is 10 minutes)'],
      'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
      'project_feature.builds_access_level': ['cannot have higher visibility level than repository access level'],
    });
    const branch = await rejection(update(otherId, { defaultBranch: 'develop' }, owner));
    expect(branch.fields).toEqual({ base: ["Could not change HEAD: branch 'develop' does not exist"] });
  });

  it('needs Maintainer to edit and Owner to send a visibility; hidden projects are NOT_FOUND', async () => {
    expect((await rejection(update(appId, { description: 'x' }, developer))).kind).toBe('forbidden');
    expect((await rejection(update(appId, { visibility: PRIVATE }, maintainer))).kind).toBe('forbidden');
    const hidden = await rejection(update(appId, { description: 'x' }, stranger));
    expect([hidden.kind, hidden.message]).toEqual(['not_found', 'Project']);
    const anonymous = await rejection(update(appId, { description: 'x' }, { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] }));
    expect(anonymous.kind).toBe('unauthenticated');
    // emails_enabled needs Owner: dropped silently for a Maintainer
    const { project } = await update(appId, { settings: { emailsEnabled: false } }, maintainer);
    expect(project!.settings!.emailsEnabled).toBe(true);
    expect((await update(appId, { settings: { emailsEnabled: false } }, owner)).project!.settings!.emailsEnabled).toBe(false);
    expect(await updatedEvents(appId)).toHaveLength(2);
  });

  it('keeps a group project no more visible than its group; Owners and administrators change visibility', async () => {
    const tooOpen = await rejection(update(appId, { visibility: PUBLIC }, owner));
    expect(tooOpen.fields).toEqual({ visibility_level: ['public is not allowed in a internal group.'] });
    const { project } = await update(appId, { visibility: INTERNAL }, owner);
    expect(project!.visibility).toBe(INTERNAL);
    // pages_access_level was never set: it keeps "private" instead of following the new visibility
    expect(project!.settings!.pagesAccessLevel).toBe('private');
    expect((await updatedEvents(appId)).at(-1)).toMatchObject({ visibility: 'internal', changed: ['visibility'] });
    // a stranger reads an internal project but may not edit it: 403, no longer 404
    expect((await rejection(update(appId, { description: 'x' }, stranger))).kind).toBe('forbidden');
    groupVisibility = 'public';
    expect((await update(appId, { visibility: PUBLIC, settings: { pagesAccessLevel: 'public' } }, admin)).project).toMatchObject({
      visibility: PUBLIC, settings: { pagesAccessLevel: 'public' },
    });
    expect((await update(appId, { visibility: PRIVATE }, owner)).project!.visibility).toBe(PRIVATE);
    expect((await update(appId, { visibility: UNCHANGED, description: 'still private' }, maintainer)).project!.visibility).toBe(PRIVATE);
  });

  it('edits an archived project, as GitLab does', async () => {
    await service.archiveProject({ project: sel(otherId), archived: true }, ctx(owner));
    const { project } = await update(otherId, { description: 'archived but edited' }, owner);
    expect(project).toMatchObject({ archived: true, description: 'archived but edited' });
    expect((await updatedEvents(otherId)).at(-1)).toMatchObject({ archived: true, changed: ['description'] });
  });
});
