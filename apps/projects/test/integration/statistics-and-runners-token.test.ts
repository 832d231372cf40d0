import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Metadata } from '@grpc/grpc-js';
import { createPool, runMigrations, withTransaction, type Pool } from '@glp/db';
import {
  buildEnvelope, createKafka, encodeEnvelope, ensureTopics, EventConsumer, EventTypes, eventsMigrationSet, onEvent, topicFor,
} from '@glp/events';
import { identityV1, projectsV1, repositoryEventsV1 } from '@glp/proto';
import { createLogger, DomainError, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, eventually, infraFromEnv, uniqueName } from '@glp/testing';
import { RUNNERS_TOKEN_FORMAT } from '../../src/domain/runners-token-rules';
import { onRepositoryStatisticsChanged } from '../../src/events/repository-statistics-consumer';
import { projectsService } from '../../src/grpc/projects-service';
import { migrateProjects } from '../../src/migrations';
import { upsertNamespace } from '../../src/store/namespace-replica-store';

const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const owner = user(1, 'owner');
const maintainer = user(2, 'maint');
const developer = user(3, 'dev');
const reporter = user(4, 'rep');
const guest = user(5, 'guest');
const stranger = user(6, 'stranger');
const admin = user(9, 'root', true);
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const USERS: Actor[] = [owner, maintainer, developer, reporter, guest, stranger, admin];
const NAMESPACE_ID = 100;
const MIGRATIONS = path.resolve(__dirname, '../../migrations');
const sel = (id: number) => ({ selector: { $case: 'id' as const, value: id } });
const listing = (over: Partial<projectsV1.ListProjectsRequest>) => projectsV1.ListProjectsRequest.fromPartial({ page: 1, perPage: 20, orderBy: 'id', sort: 'asc', ...over });

describe('project statistics and runners token against PostgreSQL', () => {
  const schema = uniqueName('it_stats');
  let pool: Pool;
  let service: ReturnType<typeof projectsService>;
  let publicId = 0;
  let privateId = 0;
  const identity = {
    getNamespace: jest.fn(async () => ({ namespace: undefined, callerAccessLevel: 0 })),
    getGroup: jest.fn(async () => { throw new DomainError('not_found', 'Group'); }),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      const found = USERS.find((u) => (r.selector?.$case === 'id' ? u.id === r.selector.value : u.username === r.selector?.value));
      if (!found) throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: found.id, username: found.username, name: found.username, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
  const stats = async (id: number) =>
    (await pool.query('SELECT commit_count, repository_size, wiki_size, lfs_objects_size, uploads_size, storage_size FROM project_statistics WHERE project_id = $1', [id])).rows[0];
  const measure = (projectId: number, m: Partial<repositoryEventsV1.RepositoryStatisticsChanged>) =>
    repositoryEventsV1.RepositoryStatisticsChanged.fromPartial({ projectId, ...m });

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, {
      id: NAMESPACE_ID, name: 'owner', path: 'owner', kind: 'user', full_path: 'owner', parent_id: null, owner_id: owner.id,
      owner_username: 'owner', owner_name: 'owner', owner_state: 'active', version: 1,
    });
    const create = async (name: string, visibility: projectsV1.Visibility) =>
      (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name, namespaceId: NAMESPACE_ID, visibility }), ctx(owner))).project!;
    const created = await create('open', projectsV1.Visibility.VISIBILITY_PUBLIC);
    publicId = created.id;
    // The creator administers the project: the create answer carries the token.
    expect(created.runnersToken).toMatch(RUNNERS_TOKEN_FORMAT);
    privateId = (await create('closed', projectsV1.Visibility.VISIBILITY_PRIVATE)).id;
    for (const [member, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) {
      for (const id of [publicId, privateId]) await service.addProjectMember({ project: sel(id), userId: member.id, username: '', accessLevel: level, expiresAt: '' }, ctx(owner));
    }
  });
  afterAll(async () => {
    await pool?.end();
    await dropSchemas(schema);
  });

  it('gives every new project a statistics row (all zero) and its own runners token', async () => {
    expect(await stats(publicId)).toEqual({ commit_count: 0, repository_size: 0, wiki_size: 0, lfs_objects_size: 0, uploads_size: 0, storage_size: 0 });
    const { rows } = await pool.query<{ runners_token: string }>('SELECT runners_token FROM projects WHERE id = ANY($1) ORDER BY id', [[publicId, privateId]]);
    expect(rows.map((r) => r.runners_token)).toEqual([expect.stringMatching(RUNNERS_TOKEN_FORMAT), expect.stringMatching(RUNNERS_TOKEN_FORMAT)]);
    expect(rows[0]!.runners_token).not.toBe(rows[1]!.runners_token);
  });

  it('shows the runners token to Maintainers, Owners and administrators, in listings too (GitLab 18), never to others', async () => {
    const token = async (actor: Actor) => (await service.getProject({ selector: sel(publicId).selector, withCustomAttributes: false, statistics: false }, ctx(actor))).project!.runnersToken;
    const stored = (await pool.query<{ runners_token: string }>('SELECT runners_token FROM projects WHERE id = $1', [publicId])).rows[0]!.runners_token;
    expect(await token(owner)).toBe(stored);
    expect(await token(maintainer)).toBe(stored);
    expect(await token(admin)).toBe(stored);
    for (const actor of [developer, reporter, guest, stranger, anonymous]) expect(await token(actor)).toBe('');
    for (const actor of [owner, admin]) {
      const { projects } = await service.listProjects(listing({}), ctx(actor));
      expect(projects.find((p) => p.id === publicId)?.runnersToken).toBe(stored);
    }
    const { projects } = await service.listProjects(listing({}), ctx(developer));
    expect(projects.find((p) => p.id === publicId)?.runnersToken).toBe('');
  });

  it('shows the runners token on an edit to those who administer the project', async () => {
    const edit = (actor: Actor) => service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({ project: sel(publicId), description: `by ${actor.username}` }), ctx(actor));
    expect((await edit(maintainer)).project!.runnersToken).toMatch(RUNNERS_TOKEN_FORMAT);
  });

  it('fills statistics only when asked, for Reporters and above and administrators', async () => {
    const get = async (actor: Actor, id: number, statistics = true) =>
      (await service.getProject({ selector: sel(id).selector, withCustomAttributes: false, statistics }, ctx(actor))).project!.statistics;
    const zero = { commitCount: 0, storageSize: 0, repositorySize: 0, wikiSize: 0, lfsObjectsSize: 0, jobArtifactsSize: 0, pipelineArtifactsSize: 0, packagesSize: 0, snippetsSize: 0, uploadsSize: 0, containerRegistrySize: 0 };
    for (const actor of [owner, maintainer, developer, reporter, admin]) expect(await get(actor, privateId)).toEqual(zero);
    for (const actor of [guest, stranger, anonymous]) expect(await get(actor, publicId)).toBeUndefined();
    expect(await get(owner, privateId, false)).toBeUndefined();
  });

  it('applies RepositoryStatisticsChanged in the consumer transaction: sizes, storage_size as their sum, never an older measurement', async () => {
    const t0 = new Date('2030-01-01T00:00:00Z');
    await withTransaction(pool, (client) => onRepositoryStatisticsChanged(client, measure(privateId, { commitCount: 12, repositorySize: 3000, wikiSize: 200, lfsObjectsSize: 40, uploadsSize: 5 }), t0));
    expect(await stats(privateId)).toEqual({ commit_count: 12, repository_size: 3000, wiki_size: 200, lfs_objects_size: 40, uploads_size: 5, storage_size: 3245 });
    // An older measurement arriving late changes nothing.
    await withTransaction(pool, (client) => onRepositoryStatisticsChanged(client, measure(privateId, { commitCount: 1, repositorySize: 1 }), new Date('2029-12-31T00:00:00Z')));
    expect((await stats(privateId))!.repository_size).toBe(3000);
    // The other sizes GitLab sums (packages, snippets, job artifacts) are kept; pipeline artifacts and the registry are not in storage_size.
    await pool.query('UPDATE project_statistics SET packages_size = 100, job_artifacts_size = 10, pipeline_artifacts_size = 7777, container_registry_size = 8888 WHERE project_id = $1', [privateId]);
    await withTransaction(pool, (client) => onRepositoryStatisticsChanged(client, measure(privateId, { commitCount: 13, repositorySize: 4000, wikiSize: 200, lfsObjectsSize: 40, uploadsSize: -9 }), new Date('2030-01-02T00:00:00Z')));
    expect(await stats(privateId)).toEqual({ commit_count: 13, repository_size: 4000, wiki_size: 200, lfs_objects_size: 40, uploads_size: 0, storage_size: 4350 });
    // A project that does not exist (deleted meanwhile) is skipped without failing the event.
    await withTransaction(pool, (client) => onRepositoryStatisticsChanged(client, measure(987654, { repositorySize: 1 }), t0));
    expect((await pool.query('SELECT count(*)::int AS n FROM project_statistics WHERE project_id = 987654')).rows[0].n).toBe(0);
    // The service shows it.
    const shown = (await service.getProject({ selector: sel(privateId).selector, withCustomAttributes: false, statistics: true }, ctx(reporter))).project!.statistics;
    expect(shown).toMatchObject({ commitCount: 13, storageSize: 4350, repositorySize: 4000, packagesSize: 100, jobArtifactsSize: 10, pipelineArtifactsSize: 7777, containerRegistrySize: 8888 });
  });

  it('fills statistics in listings per project (Reporter+), and orders by sizes for administrators only', async () => {
    await withTransaction(pool, (client) => onRepositoryStatisticsChanged(client, measure(publicId, { repositorySize: 10 }), new Date('2030-01-01T00:00:00Z')));
    const byId = async (actor: Actor) => new Map((await service.listProjects(listing({ statistics: true }), ctx(actor))).projects.map((p) => [p.id, p.statistics?.storageSize]));
    expect(await byId(reporter)).toEqual(new Map([[publicId, 10], [privateId, 4350]]));
    expect(await byId(guest)).toEqual(new Map([[publicId, undefined], [privateId, undefined]]));
    expect(await byId(stranger)).toEqual(new Map([[publicId, undefined]]));
    expect((await service.listProjects(listing({ statistics: false }), ctx(admin))).projects.map((p) => p.statistics)).toEqual([undefined, undefined]);

    const order = async (actor: Actor, orderBy: string, sort: string) => (await service.listProjects(listing({ orderBy, sort }), ctx(actor))).projects.map((p) => p.id);
    expect(await order(admin, 'storage_size', 'desc')).toEqual([privateId, publicId]);
    expect(await order(admin, 'storage_size', 'asc')).toEqual([publicId, privateId]);
    expect(await order(admin, 'wiki_size', 'desc')).toEqual([privateId, publicId]);
    expect(await order(admin, 'packages_size', 'asc')).toEqual([publicId, privateId]);
    // equal sizes: the id tie-breaker in the same direction
    expect(await order(admin, 'repository_size', 'desc')).toEqual([privateId, publicId]);
    await pool.query('UPDATE project_statistics SET repository_size = 5 WHERE project_id = ANY($1)', [[publicId, privateId]]);
    expect(await order(admin, 'repository_size', 'desc')).toEqual([privateId, publicId]);
    expect(await order(admin, 'repository_size', 'asc')).toEqual([publicId, privateId]);
    // non-administrators silently get the default (created_at, i.e. id) ordering in the asked direction
    expect(await order(owner, 'storage_size', 'asc')).toEqual([publicId, privateId]);
    expect(await order(owner, 'storage_size', 'desc')).toEqual([privateId, publicId]);
  });

  it('backfills statistics rows and fresh runners tokens for projects that existed before migration 0009', async () => {
    const old = uniqueName('it_stats_old');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'glp-mig-'));
    try {
      for (const f of readdirSync(MIGRATIONS).filter((f) => f < '0009')) cpSync(path.join(MIGRATIONS, f), path.join(dir, f));
      const { databaseUrl } = infraFromEnv();
      await runMigrations({ url: databaseUrl, schema: old, sets: [{ dir, table: 'pgmigrations' }, eventsMigrationSet()] });
      const oldPool = createPool({ url: databaseUrl, schema: old, max: 1 });
      try {
        await oldPool.query(`INSERT INTO namespaces (id, name, path, kind, full_path, version) VALUES (1, 'g', 'g', 'group', 'g', 1)`);
        await oldPool.query(`INSERT INTO projects (namespace_id, name, path, visibility, creator_id) VALUES (1, 'a', 'a', 'private', 1), (1, 'b', 'b', 'public', 1)`);
        expect(await migrateProjects(databaseUrl, old)).toContain('0009_statistics_and_runners_token');
        const { rows } = await oldPool.query<{ runners_token: string; storage_size: number }>(
          'SELECT p.runners_token, s.storage_size FROM projects p JOIN project_statistics s ON s.project_id = p.id ORDER BY p.id');
        expect(rows).toEqual([
          { runners_token: expect.stringMatching(RUNNERS_TOKEN_FORMAT), storage_size: 0 },
          { runners_token: expect.stringMatching(RUNNERS_TOKEN_FORMAT), storage_size: 0 },
        ]);
        expect(rows[0]!.runners_token).not.toBe(rows[1]!.runners_token);
      } finally {
        await oldPool.end();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dropSchemas(old);
    }
  });

  it('keeps a container expiration policy edit, scheduling the next run one cadence from the save', async () => {
    const before = (await service.getProject({ selector: sel(publicId).selector, withCustomAttributes: false, statistics: false }, ctx(owner))).project!.settings!;
    expect(before).toMatchObject({ containerExpirationPolicyCadence: '1d', containerExpirationPolicyEnabled: false, containerExpirationPolicyKeepN: 10 });
    const started = Date.now();
    const { project } = await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({
      project: sel(publicId), settings: { containerExpirationPolicyEnabled: true, containerExpirationPolicyCadence: '7d', containerExpirationPolicyKeepN: 25 },
    }), ctx(maintainer));
    const s = project!.settings!;
    expect(s).toMatchObject({ containerExpirationPolicyEnabled: true, containerExpirationPolicyCadence: '7d', containerExpirationPolicyKeepN: 25, containerExpirationPolicyOlderThan: '90d' });
    const next = Date.parse(s.containerExpirationPolicyNextRunAt!);
    expect(next).toBeGreaterThanOrEqual(started + 7 * 86_400_000 - 1000);
    expect(next).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 1000);
    const invalid = await service.updateProject(projectsV1.UpdateProjectRequest.fromPartial({
      project: sel(publicId), settings: { containerExpirationPolicyCadence: '2d', containerExpirationPolicyNameRegex: '' },
    }), ctx(maintainer)).catch((e: DomainError) => e);
    expect(invalid).toBeInstanceOf(DomainError);
    expect((invalid as DomainError).fields).toEqual({
      'container_expiration_policy.cadence': ['is not included in the list'], 'container_expiration_policy.name_regex': ["can't be blank"],
    });
  });
});

describe('RepositoryStatisticsChanged through Kafka', () => {
  const schema = uniqueName('it_stats_kafka');
  const prefix = `${uniqueName('it-stats').replace(/_/g, '-')}.`;
  let pool: Pool;
  let consumer: EventConsumer;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateProjects(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
  });
  afterAll(async () => {
    await consumer?.stop();
    await pool?.end();
    await dropSchemas(schema);
  });

  it('a published measurement reaches the statistics the service shows', async () => {
    const { kafkaBrokers } = infraFromEnv();
    const logger = createLogger('stats-test', process.env.EVENTS_TEST_LOG ?? 'silent');
    const identity = {
      getNamespace: jest.fn(), getGroup: jest.fn(), listGroupMembers: jest.fn(),
      getUser: jest.fn(async () => ({ user: identityV1.User.fromPartial({ id: owner.id, username: owner.username, state: 'active', projectsLimit: 100000 }) })),
      getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    };
    const service = projectsService({ pool, identity, topic: 'test.projects', countLimit: 10000 });
    await upsertNamespace(pool, {
      id: NAMESPACE_ID, name: 'owner', path: 'owner', kind: 'user', full_path: 'owner', parent_id: null, owner_id: owner.id,
      owner_username: 'owner', owner_name: 'owner', owner_state: 'active', version: 1,
    });
    const id = (await service.createProject(projectsV1.CreateProjectRequest.fromPartial({ name: 'measured', namespaceId: NAMESPACE_ID }), ctx(owner))).project!.id;
    const topic = topicFor('repo-admin', prefix);
    const kafka = createKafka({ brokers: kafkaBrokers, clientId: 'stats-test', logger });
    await ensureTopics(kafka, [topic]);
    // Wired as main.ts wires it.
    consumer = new EventConsumer({
      pool, kafka, groupId: `${prefix}projects`, consumerName: 'projects', topics: [topic], logger, fromBeginning: true,
      handlers: onEvent(EventTypes.RepositoryStatisticsChanged, ({ client, payload, envelope }) => onRepositoryStatisticsChanged(client, payload, envelope.occurredAt)),
    });
    await consumer.start();
    const envelope = buildEnvelope({
      aggregateType: 'project', aggregateKey: `project:${id}`, payloadType: EventTypes.RepositoryStatisticsChanged,
      payload: repositoryEventsV1.RepositoryStatisticsChanged.fromPartial({ projectId: id, commitCount: 7, repositorySize: 1048576, wikiSize: 2048, lfsObjectsSize: 512, uploadsSize: 64 }),
    });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ key: envelope.aggregateKey, value: encodeEnvelope(envelope) }] });
    } finally {
      await producer.disconnect();
    }
    const shown = await eventually(async () => {
      const s = (await service.getProject({ selector: sel(id).selector, withCustomAttributes: false, statistics: true }, ctx(owner))).project!.statistics;
      return s && s.commitCount === 7 ? s : undefined;
    }, 30000);
    expect(shown).toEqual({
      commitCount: 7, storageSize: 1048576 + 2048 + 512 + 64, repositorySize: 1048576, wikiSize: 2048, lfsObjectsSize: 512,
      jobArtifactsSize: 0, pipelineArtifactsSize: 0, packagesSize: 0, snippetsSize: 0, uploadsSize: 64, containerRegistrySize: 0,
    });
    expect((await pool.query('SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1', [envelope.eventId])).rows[0].n).toBe(1);
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: (await admin.listTopics()).filter((t) => t.startsWith(prefix)), timeout: 5000 }).catch(() => undefined);
    await admin.disconnect();
  }, 60000);
});
