import { Metadata, status } from '@grpc/grpc-js';
import { conflict, DomainError, forbidden, fromErrorPayload, fromGrpcError, invalid, isUnimplemented, notFound, projectMoved, toErrorPayload, toGrpcError, unauthenticated } from './errors';

describe('domain error ⇄ gRPC status mapping', () => {
  it.each([
    [notFound('Project'), status.NOT_FOUND],
    [forbidden(), status.PERMISSION_DENIED],
    [unauthenticated(), status.UNAUTHENTICATED],
    [invalid({ name: ["can't be blank"] }), status.INVALID_ARGUMENT],
    [conflict('Email has already been taken'), status.ALREADY_EXISTS],
  ])('%s → code %s', (err, code) => {
    expect(toGrpcError(err).code).toBe(code);
  });

  it.each([
    ['PostgreSQL shutting down (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['PostgreSQL starting up (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['connection failure (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['refused on every address', new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })])],
    ['node-postgres, mid-query', new Error('Connection terminated unexpectedly')],
    ['pg-pool, no connection in time', new Error('timeout exceeded when trying to connect')],
    ['a client whose connection broke', new Error('Client has encountered a connection error and is not queryable')],
  ])('a database that is gone (%s) is UNAVAILABLE, not INTERNAL', (_, err) => {
    const wire = toGrpcError(err);
    expect(wire.code).toBe(status.UNAVAILABLE);
    expect(fromGrpcError({ code: wire.code, details: wire.details, metadata: wire.metadata }).kind).toBe('unavailable');
  });

  it.each([
    ['a constraint violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a mixed aggregate', new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), new Error('b')])],
  ])('%s stays INTERNAL', (_, err) => {
    expect(toGrpcError(err).code).toBe(status.INTERNAL);
  });

  it('round-trips kind, message and field errors through metadata', () => {
    const original = invalid({ name: ['has already been taken'], path: ['has already been taken'] });
    const wire = toGrpcError(original);
    const back = fromGrpcError({ code: wire.code, details: wire.details, metadata: wire.metadata });
    expect(back).toBeInstanceOf(DomainError);
    expect(back.kind).toBe('invalid');
    expect(back.fields).toEqual({ name: ['has already been taken'], path: ['has already been taken'] });
    expect(back.message).toBe('name has already been taken; path has already been taken');
  });

  it('round-trips a moved project with its id through metadata (kind moved, NOT_FOUND on the wire)', () => {
    const wire = toGrpcError(projectMoved(4711));
    expect(wire.code).toBe(status.NOT_FOUND);
    expect(wire.metadata.get('x-glp-error-moved-to-id')).toEqual(['4711']);
    const back = fromGrpcError({ code: wire.code, details: wire.details, metadata: wire.metadata });
    expect(back).toMatchObject({ kind: 'moved', movedToId: 4711, message: 'Project' });
    // A service in the middle (access-requests asking projects) re-raises it unchanged.
    const relayed = fromGrpcError({ ...toGrpcError(back) });
    expect(relayed).toMatchObject({ kind: 'moved', movedToId: 4711 });
    // Other errors carry no project id; a malformed one is dropped.
    expect(fromGrpcError({ ...toGrpcError(notFound('Project')) }).movedToId).toBeUndefined();
    const bad = new Metadata();
    bad.set('x-glp-error-kind', 'moved');
    bad.set('x-glp-error-moved-to-id', '12abc');
    expect(fromGrpcError({ code: status.NOT_FOUND, details: 'Project', metadata: bad })).toMatchObject({ kind: 'moved', movedToId: undefined });
  });

  it('hides unexpected errors behind a generic INTERNAL', () => {
    const wire = toGrpcError(new Error('relation "users" does not exist'));
    expect(wire.code).toBe(status.INTERNAL);
    expect(wire.details).toBe('internal error');
  });

  it('maps plain gRPC codes without our metadata (e.g. a deadline) to a kind', () => {
    expect(fromGrpcError({ code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: new Metadata() }).kind).toBe('unavailable');
    expect(fromGrpcError({ code: status.NOT_FOUND, details: 'x', metadata: new Metadata() }).kind).toBe('not_found');
    expect(fromGrpcError({ code: status.DATA_LOSS, details: 'x', metadata: new Metadata() }).kind).toBe('internal');
  });

  it('carries the error of one item of a batch as plain fields and back (ErrorPayload), with the same rules', () => {
    expect(toErrorPayload(projectMoved(12))).toEqual({ kind: 'moved', message: 'Project', fieldsJson: '', movedToId: 12 });
    expect(fromErrorPayload(toErrorPayload(projectMoved(12)))).toMatchObject({ kind: 'moved', message: 'Project', movedToId: 12 });
    const invalidOne = fromErrorPayload(toErrorPayload(invalid({ name: ['is too long'] })));
    expect(invalidOne).toBeInstanceOf(DomainError);
    expect(invalidOne).toMatchObject({ kind: 'invalid', fields: { name: ['is too long'] } });
    // Unexpected errors stay hidden; a database that is gone is `unavailable`; an unknown kind is internal.
    expect(toErrorPayload(new Error('relation "users" does not exist'))).toEqual({ kind: 'internal', message: 'internal error', fieldsJson: '', movedToId: 0 });
    expect(toErrorPayload(Object.assign(new Error('gone'), { code: 'ECONNREFUSED' })).kind).toBe('unavailable');
    expect(fromErrorPayload({ kind: 'no-such-kind', message: 'x' }).kind).toBe('internal');
    expect(fromErrorPayload({ kind: 'not_found', message: 'Project', movedToId: 5 }).movedToId).toBeUndefined();
  });

  it('tells an UNIMPLEMENTED call (a peer without the method) from other failures', () => {
    expect(isUnimplemented(fromGrpcError({ code: status.UNIMPLEMENTED, details: 'The server does not implement the method', metadata: new Metadata() }))).toBe(true);
    expect(isUnimplemented(fromGrpcError({ code: status.INTERNAL, details: 'x', metadata: new Metadata() }))).toBe(false);
    expect(isUnimplemented(new Error('x'))).toBe(false);
  });
});
