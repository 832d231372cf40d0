import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Metadata } from '@grpc/grpc-js';
import { createPool, type Pool } from '@glp/db';
import { identityV1 } from '@glp/proto';
import { createLogger, DomainError, systemActor, type Actor, type CallContext } from '@glp/service-kit';
import { dropSchemas, infraFromEnv, uniqueName } from '@glp/testing';
import { ensureRootUser } from '../../src/bootstrap/root-user';
import { identityService } from '../../src/grpc/identity-service';
import { noAuthCache } from '../../src/events/auth-cache-invalidator';
import { noGroupAccessCache } from '../../src/events/group-access-invalidator';
import { migrateIdentity } from '../../src/migrations';

const logger = createLogger('identity-test', 'silent');
const ctx = (actor: Actor): CallContext => ({ actor, requestId: 'test', metadata: new Metadata() });
const admin = systemActor('test');
const alice: Actor = { kind: 'user', id: 0, username: 'alice', admin: false, scopes: ['api'] };

describe('identity against PostgreSQL', () => {
  const schema = uniqueName('it_identity');
  let pool: Pool;
  let dataDir: string;
  let service: ReturnType<typeof identityService>;

  beforeAll(async () => {
    const { databaseUrl } = infraFromEnv();
    await migrateIdentity(databaseUrl, schema);
    pool = createPool({ url: databaseUrl, schema, max: 4 });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'identity-it-'));
    service = identityService({ pool, topic: 'test.identity', logger, countLimit: 10000, authCache: noAuthCache, groupAccess: noGroupAccessCache });
  });
  afterAll(async () => {
    await pool.end();
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchemas(schema);
  });

  it('seeds root once; a generated token is written to the data folder and authenticates', async () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const first = await ensureRootUser({ pool, topic: 't', rootEmail: 'admin@example.com', dataDir, logger });
    const second = await ensureRootUser({ pool, topic: 't', rootEmail: 'admin@example.com', dataDir, logger });
    write.mockRestore();
    expect(second.userId).toBe(first.userId);
    expect(second.tokenFile).toBeUndefined(); // not generated twice
    const token = readFileSync(first.tokenFile!, 'utf8').trim();
    const auth = await service.authenticateToken({ token }, ctx(admin));
    expect(auth.status).toBe(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    expect(auth.user).toMatchObject({ username: 'root', isAdmin: true });
    const stored = await pool.query('SELECT token_digest FROM personal_access_tokens');
    expect(stored.rows.every((r) => !String(r.token_digest).includes(token))).toBe(true);
  });

  it('registers GITLAB_ROOT_TOKEN idempotently', async () => {
    await ensureRootUser({ pool, topic: 't', rootEmail: 'admin@example.com', dataDir, logger, rootToken: 'glpat-configured-root-token-1' });
    await ensureRootUser({ pool, topic: 't', rootEmail: 'admin@example.com', dataDir, logger, rootToken: 'glpat-configured-root-token-1' });
    const auth = await service.authenticateToken({ token: 'glpat-configured-root-token-1' }, ctx(admin));
    expect(auth.status).toBe(identityV1.TokenStatus.TOKEN_STATUS_ACTIVE);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM personal_access_tokens WHERE name = 'GITLAB_ROOT_TOKEN'");
    expect(rows[0].n).toBe(1);
  });

  it('creates a user with a personal namespace and outboxes UserCreated + NamespaceChanged in the same transaction', async () => {
    const before = (await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n;
    const { user } = await service.createUser(
      identityV1.CreateUserRequest.fromPartial({ username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'password-123', skipConfirmation: true }),
      ctx(admin),
    );
    expect(user).toMatchObject({ username: 'alice', state: 'active', isAdmin: false });
    expect(user!.namespaceId).toBeGreaterThan(0);
    const events = await pool.query('SELECT event_type, message_key FROM outbox ORDER BY id OFFSET $1', [before]);
    expect(events.rows).toEqual([
      { event_type: 'gitlab.events.v1.UserCreated', message_key: `user:${user!.id}` },
      { event_type: 'gitlab.events.v1.NamespaceChanged', message_key: `namespace:${user!.namespaceId}` },
    ]);
  });

  it('answers duplicates with 409-style conflicts and writes nothing', async () => {
    const count = async () => (await pool.query('SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM outbox) AS n')).rows[0].n;
    const before = await count();
    const create = (u: Partial<identityV1.CreateUserRequest>) =>
      service.createUser(identityV1.CreateUserRequest.fromPartial({ name: 'X', password: 'password-123', ...u }), ctx(admin));
    await expect(create({ username: 'alice2', email: 'ALICE@example.com' })).rejects.toMatchObject({ kind: 'conflict', message: 'Email has already been taken' });
    await expect(create({ username: 'Alice', email: 'new@example.com' })).rejects.toMatchObject({ kind: 'conflict', message: 'Username has already been taken' });
    await expect(create({ username: 'root', email: 'r2@example.com' })).rejects.toMatchObject({ kind: 'conflict' });
    await expect(create({ username: 'bad name', email: 'bad@example.com' })).rejects.toMatchObject({ kind: 'invalid', fields: { username: [expect.any(String)] } });
    expect(await count()).toBe(before);
  });

  it('finds users by any of their e-mail addresses, case-insensitively, for system actors only', async () => {
    await service.createUser(identityV1.CreateUserRequest.fromPartial({ username: 'mailer', name: 'Mail Er', email: 'Mail.Er@Example.com', password: 'mailer-password-1', skipConfirmation: true }), ctx(admin));
    const { matches } = await service.findUsersByEmails({ emails: ['mail.er@example.com', 'nobody@example.com', 'MAIL.ER@EXAMPLE.COM'] }, ctx(systemActor('push-rules')));
    expect(matches.map((m) => m.email).sort()).toEqual(['MAIL.ER@EXAMPLE.COM', 'mail.er@example.com']);
    expect(new Set(matches.map((m) => m.userId)).size).toBe(1);
    await expect(service.findUsersByEmails({ emails: ['mail.er@example.com'] }, ctx({ ...alice, admin: true }))).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('only administrators create users and tokens', async () => {
    await expect(service.createUser(identityV1.CreateUserRequest.fromPartial({ username: 'bob', name: 'B', email: 'b@example.com' }), ctx(alice))).rejects.toBeInstanceOf(DomainError);
    await expect(service.createPersonalAccessToken(identityV1.CreatePersonalAccessTokenRequest.fromPartial({ userId: 1, name: 'x', scopes: ['api'] }), ctx(alice))).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('issues a token with scopes and expiry; unknown tokens are NOT_FOUND', async () => {
    const { user } = await service.getUser({ selector: { $case: 'username', value: 'ALICE' } }, ctx(admin));
    const { token } = await service.createPersonalAccessToken(
      identityV1.CreatePersonalAccessTokenRequest.fromPartial({ userId: user!.id, name: 'ci', scopes: ['read_api', 'read_api'] }),
      ctx(admin),
    );
    expect(token).toMatchObject({ name: 'ci', scopes: ['read_api'], active: true, revoked: false, userId: user!.id });
    expect(token!.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const auth = await service.authenticateToken({ token: token!.token }, ctx(admin));
    expect(auth).toMatchObject({ status: identityV1.TokenStatus.TOKEN_STATUS_ACTIVE, scopes: ['read_api'] });
    const unknown = await service.authenticateToken({ token: 'glpat-nope' }, ctx(admin));
    expect(unknown.status).toBe(identityV1.TokenStatus.TOKEN_STATUS_NOT_FOUND);
    await expect(service.createPersonalAccessToken(identityV1.CreatePersonalAccessTokenRequest.fromPartial({ userId: 999999, name: 'x', scopes: ['api'] }), ctx(admin))).rejects.toMatchObject({ kind: 'not_found', message: 'User' });
  });
});
