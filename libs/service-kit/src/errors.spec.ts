import { Metadata, status } from '@grpc/grpc-js';
import { conflict, DomainError, forbidden, fromGrpcError, invalid, notFound, projectMoved, toGrpcError, unauthenticated } from './errors';

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
});
