import { ActorSigner, ActorVerificationError, ActorVerifier, signActor, verifyActor, type Actor } from './actor';

const SECRET = 'test-secret-of-sufficient-length';
const GET = '/gitlab.projects.v1.ProjectsService/GetProject';
const CREATE = '/gitlab.projects.v1.ProjectsService/CreateProject';
const alice: Actor = { kind: 'user', id: 42, username: 'alice', admin: false, scopes: ['api'], external: false };

describe('signed actor', () => {
  it('round-trips a signed actor', () => {
    const { payload, signature } = signActor(alice, SECRET, GET);
    expect(verifyActor(payload, signature, SECRET, GET)).toEqual(alice);
  });

  it('rejects a missing signature or payload', () => {
    const { payload } = signActor(alice, SECRET, GET);
    expect(() => verifyActor(payload, undefined, SECRET, GET)).toThrow(ActorVerificationError);
    expect(() => verifyActor(undefined, 'sig', SECRET, GET)).toThrow(/missing actor metadata/);
  });

  it('rejects a tampered payload (e.g. self-promotion to admin)', () => {
    const { payload, signature } = signActor(alice, SECRET, GET);
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, admin: true })).toString('base64url');
    expect(() => verifyActor(forged, signature, SECRET, GET)).toThrow(/bad signature/);
  });

  it('rejects a signed actor replayed against another gRPC method', () => {
    const { payload, signature } = signActor(alice, SECRET, GET);
    expect(() => verifyActor(payload, signature, SECRET, CREATE)).toThrow(/bad signature/);
    expect(verifyActor(payload, signature, SECRET, GET).id).toBe(42);
  });

  it('rejects a signature made with another secret', () => {
    const { payload, signature } = signActor(alice, 'another-secret-entirely-0000', GET);
    expect(() => verifyActor(payload, signature, SECRET, GET)).toThrow(/bad signature/);
  });

  it('rejects an actor signed too long ago (replay)', () => {
    const now = Date.now();
    const { payload, signature } = signActor(alice, SECRET, GET, now - 301_000);
    expect(() => verifyActor(payload, signature, SECRET, GET, 300, now)).toThrow(/expired/);
    const fresh = signActor(alice, SECRET, GET, now - 299_000);
    expect(verifyActor(fresh.payload, fresh.signature, SECRET, GET, 300, now).id).toBe(42);
  });

  it('never lets a non-boolean admin through', () => {
    const payload = Buffer.from(JSON.stringify({ ...alice, admin: 'yes', iat: Math.floor(Date.now() / 1000) })).toString('base64url');
    const { createHmac } = jest.requireActual('node:crypto') as typeof import('node:crypto');
    const signature = createHmac('sha256', SECRET).update(`${GET}\n${payload}\n`).digest('base64url');
    expect(verifyActor(payload, signature, SECRET, GET).admin).toBe(false);
  });

  it('binds the signature to the request: a captured pair replayed with another message is refused', () => {
    const grant = new TextEncoder().encode('{"user_id":2,"admin":false}');
    const promote = new TextEncoder().encode('{"user_id":2,"admin":true}');
    const { payload, signature } = signActor({ ...alice, admin: true }, SECRET, GET, Date.now(), grant);
    expect(verifyActor(payload, signature, SECRET, GET, 300, Date.now(), grant).admin).toBe(true);
    expect(() => verifyActor(payload, signature, SECRET, GET, 300, Date.now(), promote)).toThrow(/bad signature/);
    expect(() => verifyActor(payload, signature, SECRET, GET)).toThrow(/bad signature/);
  });

  it('ActorSigner reuses the payload within the second, and signs each message', () => {
    const signer = new ActorSigner(SECRET);
    const t = 1_700_000_000_000;
    const one = new Uint8Array([1]);
    const two = new Uint8Array([2]);
    const a = signer.sign(alice, GET, one, t);
    const b = signer.sign(alice, GET, two, t + 500);
    expect(b.payload).toBe(a.payload);
    expect(b.signature).not.toBe(a.signature);
    expect(signer.sign(alice, GET, one, t + 500)).toEqual(a);
    expect(signer.sign(alice, CREATE, one, t + 500).signature).not.toBe(a.signature);
    expect(signer.sign({ ...alice, admin: true }, GET, one, t + 500).payload).not.toBe(a.payload);
    expect(verifyActor(b.payload, b.signature, SECRET, GET, 300, t + 500, two)).toEqual(alice);
    const next = signer.sign(alice, GET, one, t + 1000);
    expect(next.payload).not.toBe(a.payload);
    expect(verifyActor(next.payload, next.signature, SECRET, GET, 300, t + 1000, one)).toEqual(alice);
  });
});

describe('ActorVerifier (the memo of verified actors)', () => {
  const t = 1_700_000_000_000;
  const signed = signActor(alice, SECRET, GET, t);

  it('answers like verifyActor, and a second call within the second from the memo (an independent copy)', () => {
    const verifier = new ActorVerifier(SECRET);
    const first = verifier.verify(signed.payload, signed.signature, GET, undefined, t + 10);
    expect(first).toEqual(alice);
    first.scopes.push('sudo');
    first.admin = true;
    expect(verifier.verify(signed.payload, signed.signature, GET, undefined, t + 900)).toEqual(alice);
  });

  it('never serves a remembered actor to another method, another message or with another signature', () => {
    const verifier = new ActorVerifier(SECRET);
    verifier.verify(signed.payload, signed.signature, GET, undefined, t);
    expect(() => verifier.verify(signed.payload, signed.signature, CREATE, undefined, t)).toThrow(/bad signature/);
    expect(() => verifier.verify(signed.payload, signed.signature, GET, new Uint8Array([1]), t)).toThrow(/bad signature/);
    expect(() => verifier.verify(signed.payload, `${signed.signature.slice(0, -2)}AA`, GET, undefined, t)).toThrow(/bad signature/);
    expect(() => verifier.verify(signed.payload, undefined, GET, undefined, t)).toThrow(/missing actor metadata/);
  });

  it('forgets at the next second, so the age check runs again', () => {
    const verifier = new ActorVerifier(SECRET, 2);
    expect(verifier.verify(signed.payload, signed.signature, GET, undefined, t).id).toBe(42);
    expect(() => verifier.verify(signed.payload, signed.signature, GET, undefined, t + 3000)).toThrow(/expired/);
  });
});

describe('the external flag', () => {
  it('travels signed and comes back as a boolean', () => {
    const secret = 'a-secret-of-16-chars!';
    const signed = signActor({ kind: 'user', id: 3, username: 'ext', admin: false, scopes: ['api'], external: true }, secret, '/m');
    expect(verifyActor(signed.payload, signed.signature, secret, '/m').external).toBe(true);
    const plain = signActor({ kind: 'user', id: 3, username: 'u', admin: false, scopes: ['api'] }, secret, '/m');
    expect(verifyActor(plain.payload, plain.signature, secret, '/m').external).toBe(false);
  });
});
