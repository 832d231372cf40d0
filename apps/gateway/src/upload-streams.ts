import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { repoAdminV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorSigner, currentContext, fromGrpcError, REQUEST_ID_HEADER, sendStreamed } from '@glp/service-kit';

/** A stored file on its way to the client: what repo-admin said about it, then its bytes. */
export interface DownloadedFile {
  file: repoAdminV1.StoredFile;
  /** Pulls the next message only when read (back-pressure reaches repo-admin's disk); destroying it cancels the call. */
  body: Readable;
}

/** A file to stream to repo-admin; the stream id that binds the call is added when it is sent. */
export type FileToSend = Omit<repoAdminV1.NewFile, 'streamId'>;

/** repo-admin's streaming calls for uploads and avatars (service-kit's client wraps unary calls only), as the current caller. */
export interface UploadStreams {
  /** POST /projects/:id/uploads: `file`, then the bytes of `body` as they arrive. Rejects with repo-admin's DomainError. */
  createUpload(file: FileToSend, body: AsyncIterable<Buffer>): Promise<repoAdminV1.Upload>;
  /** A new avatar's bytes; answers the stored avatar ("<secret>/<file name>"). */
  storeAvatar(file: FileToSend, body: AsyncIterable<Buffer>): Promise<string>;
  /** Resolves once repo-admin described the file (or rejects with its DomainError before any byte). */
  downloadUpload(request: repoAdminV1.DownloadUploadRequest): Promise<DownloadedFile>;
  downloadAvatar(request: repoAdminV1.DownloadAvatarRequest): Promise<DownloadedFile>;
}

type Part<T> = { part?: { $case: 'file'; value: T } | { $case: 'chunk'; value: Buffer } | undefined };

/** The first message of a download (the file) and a Readable of the bytes of the next ones. */
async function received<Res extends Part<repoAdminV1.StoredFile>>(call: ClientReadableStream<Res>): Promise<DownloadedFile> {
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<Res>;
  let first: IteratorResult<Res>;
  try {
    first = await messages.next();
  } catch (err) {
    call.cancel();
    throw fromGrpcError(err);
  }
  if (first.done || first.value.part?.$case !== 'file') {
    call.cancel();
    throw new Error('repo-admin sent no file description');
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (let next = await messages.next(); !next.done; next = await messages.next()) {
        const part = next.value.part;
        if (part?.$case === 'chunk' && part.value.length > 0) yield Buffer.from(part.value.buffer, part.value.byteOffset, part.value.byteLength);
      }
    } catch (err) {
      throw fromGrpcError(err);
    } finally {
      call.cancel(); // a no-op once the call ended; otherwise the reader went away
    }
  }
  return { file: first.value.part.value, body: Readable.from(chunks(), { objectMode: false, highWaterMark: 256 * 1024 }) };
}

export function createUploadStreams(raw: repoAdminV1.RepoAdminServiceClient, actorSecret: string): UploadStreams {
  const signer = new ActorSigner(actorSecret);
  const def = repoAdminV1.RepoAdminServiceService;
  /**
   * The call's metadata: the caller signed for the method and a message's bytes (a single-message request's; a file
   * stream's first message, which names the project, the file and a fresh stream id).
   */
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
  // No deadlines: a file takes as long as it is large and the client is slow; the client going away cancels the call.
  return {
    async createUpload(file, body) {
      const first: repoAdminV1.CreateUploadRequest = { part: { $case: 'file', value: { ...file, streamId: randomUUID() } } };
      const md = metadataFor(def.createUpload.path, def.createUpload.requestSerialize(first));
      const res = await sendStreamed<repoAdminV1.CreateUploadRequest, repoAdminV1.CreateUploadResponse>(
        (cb) => raw.createUpload(md, cb), first, body, (value) => ({ part: { $case: 'chunk', value } }),
      );
      return res.upload!;
    },
    async storeAvatar(file, body) {
      const first: repoAdminV1.StoreAvatarRequest = { part: { $case: 'file', value: { ...file, streamId: randomUUID() } } };
      const md = metadataFor(def.storeAvatar.path, def.storeAvatar.requestSerialize(first));
      const res = await sendStreamed<repoAdminV1.StoreAvatarRequest, repoAdminV1.StoreAvatarResponse>(
        (cb) => raw.storeAvatar(md, cb), first, body, (value) => ({ part: { $case: 'chunk', value } }),
      );
      return res.avatar;
    },
    downloadUpload(request) {
      return received(raw.downloadUpload(request, metadataFor(def.downloadUpload.path, def.downloadUpload.requestSerialize(request))));
    },
    downloadAvatar(request) {
      return received(raw.downloadAvatar(request, metadataFor(def.downloadAvatar.path, def.downloadAvatar.requestSerialize(request))));
    },
  };
}
