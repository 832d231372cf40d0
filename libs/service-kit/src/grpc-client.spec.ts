import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { makeGenericClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';
import { ANONYMOUS } from './actor';
import { createGrpcClient, GRPC_FLOW_CONTROL_WINDOW } from './grpc-client';
import { DomainError } from './errors';

const echo = {
  echo: {
    path: '/test.v1.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
} as unknown as ServiceDefinition;
const EchoClient = makeGenericClientConstructor(echo, 'test.v1.Echo');

describe('createGrpcClient', () => {
  it('advertises its flow-control window to the server, per call and per connection, before the first call', async () => {
    // A bare HTTP/2 server stands in for the peer: it sees the windows the client advertised.
    const seen: { stream?: number; connection?: number } = {};
    const server = http2.createServer();
    server.on('stream', (stream) => {
      seen.stream = stream.session?.remoteSettings.initialWindowSize;
      seen.connection = stream.session?.state.remoteWindowSize;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.from([0, 0, 0, 0, 2, 0x6f, 0x6b]));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = createGrpcClient(EchoClient as never, `127.0.0.1:${(server.address() as AddressInfo).port}`, {
      actorSecret: 'test-secret-of-sufficient-length',
    }) as unknown as { echo(req: Buffer, opts: { actor: typeof ANONYMOUS }): Promise<Buffer>; close(): void };
    try {
      expect((await client.echo(Buffer.from('hi'), { actor: ANONYMOUS })).toString()).toBe('ok');
      expect(GRPC_FLOW_CONTROL_WINDOW).toBeGreaterThanOrEqual(1024 * 1024);
      expect(seen.stream).toBe(GRPC_FLOW_CONTROL_WINDOW);
      // grpc-js raises the connection's window (WINDOW_UPDATE) once the settings are exchanged, before the transport
      // takes calls, so the server has it by the time the call's HEADERS arrive.
      expect(seen.connection).toBeGreaterThanOrEqual(GRPC_FLOW_CONTROL_WINDOW - 65_535);
    } finally {
      client.close();
      server.close();
    }
  });

  it('starts a call without capturing stack traces, restores the limit, and still maps a failure to a DomainError', async () => {
    const limits: number[] = [];
    const recording = {
      echo: { ...(echo as Record<string, object>).echo, requestSerialize: (b: Buffer) => (limits.push(Error.stackTraceLimit), b) },
    } as unknown as ServiceDefinition;
    const server = http2.createServer();
    server.on('stream', (stream) => {
      // Not found, as a service answers it: no message, grpc-status 5 with its details.
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'Project' }, { endStream: true });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = createGrpcClient(makeGenericClientConstructor(recording, 'test.v1.Echo') as never, `127.0.0.1:${(server.address() as AddressInfo).port}`, {
      actorSecret: 'test-secret-of-sufficient-length',
    }) as unknown as { echo(req: Buffer, opts: { actor: typeof ANONYMOUS }): Promise<Buffer>; close(): void };
    const before = Error.stackTraceLimit;
    try {
      const failure = await client.echo(Buffer.from('hi'), { actor: ANONYMOUS }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DomainError);
      expect(failure).toMatchObject({ kind: 'not_found', message: 'Project' });
      expect(limits).toEqual([0]);
      expect(Error.stackTraceLimit).toBe(before);
      expect(before).toBeGreaterThan(0);
    } finally {
      client.close();
      server.close();
    }
  });
});
