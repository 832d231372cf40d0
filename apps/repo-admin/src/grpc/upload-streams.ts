import { repoAdminV1 } from '@glp/proto';
import { ACTOR_MAX_AGE_SECONDS, badRequest, type Logger } from '@glp/service-kit';
import type { RepoAdminDeps } from '../app/deps';
import { openAvatarDownload, storeAvatar } from '../app/avatars';
import { createUpload, openUploadDownload, toUpload, type OpenedFile } from '../app/uploads';
import { UsedGrants } from '../domain/used-grants';
import { bindClientStream, streamBinding } from './client-stream';
import { bindServerStream, type StreamContext } from './server-stream';

type Opts = { actorSecret: string; logger: Logger };
type UploadPart = { part?: { $case: 'file'; value: repoAdminV1.NewFile } | { $case: 'chunk'; value: Buffer } | undefined };
type FilePart = { part?: { $case: 'file'; value: repoAdminV1.StoredFile } | { $case: 'chunk'; value: Buffer } | undefined };

/** A client stream of uploads: the first message names the file, every next one is a chunk of its bytes. */
async function fileThenChunks(messages: AsyncIterable<UploadPart>): Promise<{ file: repoAdminV1.NewFile; chunks: AsyncIterable<Buffer> }> {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done || first.value.part?.$case !== 'file') throw badRequest('the first message must name the file');
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let m = await it.next(); !m.done; m = await it.next()) {
      if (m.value.part?.$case !== 'chunk') throw badRequest('only chunks may follow the file');
      yield m.value.part.value;
    }
  }
  return { file: first.value.part.value, chunks: chunks() };
}

/** A stored file as a server stream: its description first, then its bytes, as fast as the client takes them. */
async function sendFile(opened: OpenedFile, ctx: StreamContext<FilePart>): Promise<void> {
  await ctx.write({
    part: {
      $case: 'file',
      value: { fileName: opened.row.filename, size: opened.size, contentType: opened.row.content_type, createdAt: opened.row.created_at },
    },
  });
  const stream = opened.open();
  ctx.onCancel(() => stream.destroy());
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) await ctx.write({ part: { $case: 'chunk', value: chunk } });
  } finally {
    stream.destroy();
  }
}

/** The stream id of a file stream's first message (what its caller's signature is bound to). */
const streamIdOf = (first: UploadPart) => (first.part?.$case === 'file' ? first.part.value.streamId || undefined : undefined);

/** CreateUpload, DownloadUpload, StoreAvatar and DownloadAvatar, bound for the gRPC server. */
export function uploadStreams(deps: RepoAdminDeps, opts: Opts) {
  const def = repoAdminV1.RepoAdminServiceService;
  const used = new UsedGrants(ACTOR_MAX_AGE_SECONDS);
  const streams = { ...opts, binding: streamBinding(streamIdOf, used) };
  return {
    createUpload: bindClientStream<repoAdminV1.CreateUploadRequest, repoAdminV1.CreateUploadResponse>(def.createUpload.path, async (messages, ctx) => {
      const { file, chunks } = await fileThenChunks(messages);
      return { upload: toUpload(await createUpload(deps, ctx.actor, file, chunks)) };
    }, streams),
    storeAvatar: bindClientStream<repoAdminV1.StoreAvatarRequest, repoAdminV1.StoreAvatarResponse>(def.storeAvatar.path, async (messages, ctx) => {
      const { file, chunks } = await fileThenChunks(messages);
      return { avatar: await storeAvatar(deps, ctx.actor, file, chunks) };
    }, streams),
    downloadUpload: bindServerStream<repoAdminV1.DownloadUploadRequest, repoAdminV1.DownloadUploadResponse>(def.downloadUpload.path, async (req, ctx) => {
      await sendFile(await openUploadDownload(deps, ctx.actor, req), ctx);
    }, opts),
    downloadAvatar: bindServerStream<repoAdminV1.DownloadAvatarRequest, repoAdminV1.DownloadAvatarResponse>(def.downloadAvatar.path, async (req, ctx) => {
      await sendFile(await openAvatarDownload(deps, ctx.actor, req), ctx);
    }, opts),
  };
}
