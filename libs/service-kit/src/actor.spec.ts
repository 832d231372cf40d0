import { ActorVerificationError, signActor, verifyActor, type Actor } from './actor';

const SECRET = 'test-secret-of-sufficient-length';
const alice: Actor = { kind: 'user', id: 42, username: 'alice', admin: false, scopes: ['api'] };

describe('signed actor', () => {
  it('round-trips a signed actor', () => {
    const { payload, signature } = signActor(alice, SECRET);
    expect(verifyActor(payload, signature, SECRET)).toEqual(alice);
  });

  it('rejects a missing signature or payload', () => {
    const { payload } = signActor(alice, SECRET);
    expect(() => verifyActor(payload, undefined, SECRET)).toThrow(ActorVerificationError);
    expect(() => verifyActor(undefined, 'sig', SECRET)).toThrow(/missing actor metadata/);
  });

  it('rejects a tampered payload (e.g. self-promotion to admin)', () => {
    const { payload, signature } = signActor(alice, SECRET);
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, admin: true })).toString('base64url');
    expect(() => verifyActor(forged, signature, SECRET)).toThrow(/bad signature/);
  });

  it('rejects a signature made with another secret', () => {
    const { payload, signature } = signActor(alice, 'another-secret-entirely-0000');
    expect(() => verifyActor(payload, signature, SECRET)).toThrow(/bad signature/);
  });

  it('rejects an actor signed too long ago (replay)', () => {
    const now = Date.now();
    const { payload, signature } = signActor(alice, SECRET, now - 301_000);
    expect(() => verifyActor(payload, signature, SECRET, 300, now)).toThrow(/expired/);
    const fresh = signActor(alice, SECRET, now - 299_000);
    expect(verifyActor(fresh.payload, fresh.signature, SECRET, 300, now).id).toBe(42);
  });

  it('never lets a non-boolean admin through', () => {
    const payload = Buffer.from(JSON.stringify({ ...alice, admin: 'yes', iat: Math.floor(Date.now() / 1000) })).toString('base64url');
    const { createHmac } = jest.requireActual('node:crypto') as typeof import('node:crypto');
    const signature = createHmac('sha256', SECRET).update(payload).digest('base64url');
    expect(verifyActor(payload, signature, SECRET).admin).toBe(false);
  });
});
