import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { repoAdminV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorSigner, currentContext, fromGrpcError, REQUEST_ID_HEADER } from '@glp/service-kit';

/** repo-admin's server-streaming calls (service-kit's client wraps unary calls only). */
export interface RepoAdminStreams {
  /**
   * The snapshot tar of a project's repository, as the caller of the current request. Resolves once repo-admin answered:
   * with the bytes (a stream that pulls the next message only when it is read: back-pressure reaches repo-admin's disk
   * reads), or rejects with the DomainError it raised (a refused caller, a hidden project) before sending any byte.
   * Destroying the stream cancels the call.
   */
  getSnapshot(request: repoAdminV1.GetSnapshotRequest): Promise<Readable>;
}

/** The bytes of a call's messages, as a Readable; the first message (already read) goes first. */
function bytesOf(call: ClientReadableStream<repoAdminV1.GetSnapshotResponse>, messages: AsyncIterator<repoAdminV1.GetSnapshotResponse>,
  first: IteratorResult<repoAdminV1.GetSnapshotResponse>): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (let next = first; !next.done; next = await messages.next()) {
        if (next.value.data.length > 0) yield Buffer.from(next.value.data.buffer, next.value.data.byteOffset, next.value.data.byteLength);
      }
    } catch (err) {
      throw fromGrpcError(err);
    } finally {
      call.cancel(); // a no-op once the call ended; otherwise the reader went away
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 256 * 1024 });
}

export function createRepoAdminStreams(raw: repoAdminV1.RepoAdminServiceClient, actorSecret: string): RepoAdminStreams {
  const signer = new ActorSigner(actorSecret);
  /** The call's metadata: the caller signed for the method and, for a single-message request, that message's bytes. */
  const metadataFor = (path: string, body?: Uint8Array) => {
    const ctx = currentContext();
    if (!ctx?.actor) throw new Error(`grpc call ${path} without an actor`);
    const md = new Metadata();
    const signed = signer.sign(ctx.actor, path, body);
    md.set(ACTOR_HEADER, signed.payload);
    md.set(ACTOR_SIGNATURE_HEADER, signed.signature);
    md.set(REQUEST_ID_HEADER, ctx.requestId || randomUUID());
    return md;
  };
  return {
    async getSnapshot(request) {
      // No deadline: a snapshot takes as long as the repository is large; the HTTP client going away cancels it.
      const def = repoAdminV1.RepoAdminServiceService.getSnapshot;
      const call = raw.getSnapshot(request, metadataFor(def.path, def.requestSerialize(request)));
      const messages = call[Symbol.asyncIterator]() as AsyncIterator<repoAdminV1.GetSnapshotResponse>;
      let first: IteratorResult<repoAdminV1.GetSnapshotResponse>;
      try {
        first = await messages.next();
      } catch (err) {
        call.cancel();
        throw fromGrpcError(err);
      }
      return bytesOf(call, messages, first);
    },
  };
}
