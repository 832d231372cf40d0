import { repoAdminV1 } from '@glp/proto';
import { ACTOR_MAX_AGE_SECONDS, badRequest, type Logger } from '@glp/service-kit';
import type { Readable } from 'node:stream';
import { openFileBackup, openRepositoryBackup, restoreFile, restoreRepository } from '../app/backup';
import type { RepoAdminDeps } from '../app/deps';
import { UsedGrants } from '../domain/used-grants';
import { bindClientStream, streamBinding } from './client-stream';
import { bindServerStream, type StreamContext } from './server-stream';

type Opts = { actorSecret: string; logger: Logger };
type Described<T, K extends string> = { part?: { $case: K; value: T } | { $case: 'chunk'; value: Buffer } | undefined };

/** Bytes per message (well below gRPC's 4 MiB limit; smaller pieces are gathered up to it). */
const CHUNK_BYTES = 256 * 1024;

/** The first message of a restore stream (what describes it), then its chunks; a chunk first, or a description later, is refused. */
async function describedThenChunks<T, K extends string>(messages: AsyncIterable<Described<T, K>>, kind: K): Promise<{ first: T; chunks: AsyncIterable<Buffer> }> {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done || first.value.part?.$case !== kind) throw badRequest(`the first message must be the ${kind}`);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let m = await it.next(); !m.done; m = await it.next()) {
      const part = m.value.part;
      if (part?.$case !== 'chunk') throw badRequest(`only chunks may follow the ${kind}`);
      yield part.value as Buffer;
    }
  }
  return { first: first.value.part.value as T, chunks: chunks() };
}

/** Writes a readable's bytes as chunk messages of up to CHUNK_BYTES, as fast as the client takes them. */
async function sendChunks<Res>(source: Readable, ctx: StreamContext<Res>, chunk: (data: Buffer) => Res): Promise<void> {
  ctx.onCancel(() => source.destroy());
  try {
    let pending: Buffer[] = [];
    let size = 0;
    for await (const piece of source as AsyncIterable<Buffer>) {
      pending.push(piece);
      size += piece.length;
      if (size >= CHUNK_BYTES) {
        await ctx.write(chunk(Buffer.concat(pending, size)));
        pending = [];
        size = 0;
      }
    }
    if (size > 0) await ctx.write(chunk(Buffer.concat(pending, size)));
  } finally {
    source.destroy();
  }
}

const streamIdOf = (first: { part?: { $case: string; value: unknown } | undefined }) => {
  const value = first.part?.$case === 'chunk' ? undefined : (first.part?.value as { streamId?: string } | undefined);
  return value?.streamId || undefined;
};

/** BackupRepository, RestoreRepository, BackupFile and RestoreFile, bound for the gRPC server (system actors only). */
export function backupStreams(deps: RepoAdminDeps, opts: Opts) {
  const def = repoAdminV1.RepoAdminServiceService;
  const streams = { ...opts, binding: streamBinding(streamIdOf, new UsedGrants(ACTOR_MAX_AGE_SECONDS)) };
  return {
    backupRepository: bindServerStream<repoAdminV1.BackupRepositoryRequest, repoAdminV1.BackupRepositoryResponse>(def.backupRepository.path, async (req, ctx) => {
      const backup = await openRepositoryBackup(deps, ctx.actor, req.projectId, req.wiki);
      await ctx.write({ part: { $case: 'header', value: { exists: backup.exists, empty: backup.empty, head: backup.head } } });
      if (backup.bundle) await sendChunks(backup.bundle, ctx, (value): repoAdminV1.BackupRepositoryResponse => ({ part: { $case: 'chunk', value } }));
    }, opts),
    restoreRepository: bindClientStream<repoAdminV1.RestoreRepositoryRequest, repoAdminV1.RestoreRepositoryResponse>(def.restoreRepository.path, async (messages, ctx) => {
      const { first, chunks } = await describedThenChunks<repoAdminV1.RepositoryToRestore, 'repository'>(messages, 'repository');
      return { refs: await restoreRepository(deps, ctx.actor, first, chunks) };
    }, streams),
    backupFile: bindServerStream<repoAdminV1.BackupFileRequest, repoAdminV1.BackupFileResponse>(def.backupFile.path, async (req, ctx) => {
      const file = await openFileBackup(deps, ctx.actor, req.file);
      await ctx.write({ part: { $case: 'size', value: file.size } });
      await sendChunks(file.open(), ctx, (value): repoAdminV1.BackupFileResponse => ({ part: { $case: 'chunk', value } }));
    }, opts),
    restoreFile: bindClientStream<repoAdminV1.RestoreFileRequest, repoAdminV1.RestoreFileResponse>(def.restoreFile.path, async (messages, ctx) => {
      const { first, chunks } = await describedThenChunks<repoAdminV1.FileToRestore, 'file'>(messages, 'file');
      return { size: await restoreFile(deps, ctx.actor, first.file, first.replace, chunks) };
    }, streams),
  };
}
