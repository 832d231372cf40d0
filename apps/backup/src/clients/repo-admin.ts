import { randomUUID } from 'node:crypto';
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { repoAdminV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ActorSigner, createGrpcClient, fromGrpcError, REQUEST_ID_HEADER, sendStreamed, systemActor } from '@glp/service-kit';

/** The backup's caller on repo-admin: a system actor signed with ACTOR_SECRET (repo-admin takes backups from no one else). */
const BACKUP = systemActor('backup');

type Part<Head> = { part?: { $case: string; value: Head | Buffer } | undefined };

/** A server stream whose first message describes what follows, then its chunks as an async iterable. */
async function describedStream<Head, Res extends Part<Head>>(call: ClientReadableStream<Res>, headCase: string): Promise<{ head: Head; chunks: AsyncIterable<Buffer> }> {
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<Res>;
  let first: IteratorResult<Res>;
  try {
    first = await messages.next();
  } catch (err) {
    call.cancel();
    throw fromGrpcError(err);
  }
  if (first.done || first.value.part?.$case !== headCase) {
    call.cancel();
    throw new Error(`repo-admin did not describe the stream (${headCase})`);
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (let next = await messages.next(); !next.done; next = await messages.next()) {
        const part = next.value.part;
        if (part?.$case === 'chunk') yield part.value as Buffer;
      }
    } catch (err) {
      throw fromGrpcError(err);
    } finally {
      call.cancel();
    }
  }
  return { head: first.value.part.value as Head, chunks: chunks() };
}

export interface RepoAdminBackupClient {
  backupRepository(projectId: number, wiki: boolean): Promise<{ head: repoAdminV1.RepositoryBackupHeader; chunks: AsyncIterable<Buffer> }>;
  restoreRepository(target: Omit<repoAdminV1.RepositoryToRestore, 'streamId'>, bundle: AsyncIterable<Buffer>): Promise<number>;
  backupFile(file: repoAdminV1.StoredFileKey): Promise<{ size: number; chunks: AsyncIterable<Buffer> }>;
  restoreFile(file: repoAdminV1.StoredFileKey, replace: boolean, bytes: AsyncIterable<Buffer>): Promise<number>;
  close(): void;
}

export function repoAdminBackupClient(address: string, actorSecret: string): RepoAdminBackupClient {
  const client = createGrpcClient(repoAdminV1.RepoAdminServiceClient, address, { actorSecret });
  const raw = client.raw;
  const signer = new ActorSigner(actorSecret);
  const def = repoAdminV1.RepoAdminServiceService;
  const metadataFor = (path: string, body: Uint8Array) => {
    const md = new Metadata();
    const signed = signer.sign(BACKUP, path, body);
    md.set(ACTOR_HEADER, signed.payload);
    md.set(ACTOR_SIGNATURE_HEADER, signed.signature);
    md.set(REQUEST_ID_HEADER, randomUUID());
    return md;
  };
  return {
    backupRepository(projectId, wiki) {
      const req: repoAdminV1.BackupRepositoryRequest = { projectId, wiki };
      return describedStream<repoAdminV1.RepositoryBackupHeader, repoAdminV1.BackupRepositoryResponse>(
        raw.backupRepository(req, metadataFor(def.backupRepository.path, def.backupRepository.requestSerialize(req))), 'header',
      );
    },
    async restoreRepository(target, bundle) {
      const first: repoAdminV1.RestoreRepositoryRequest = { part: { $case: 'repository', value: { ...target, streamId: randomUUID() } } };
      const md = metadataFor(def.restoreRepository.path, def.restoreRepository.requestSerialize(first));
      const res = await sendStreamed<repoAdminV1.RestoreRepositoryRequest, repoAdminV1.RestoreRepositoryResponse>(
        (cb) => raw.restoreRepository(md, cb), first, bundle, (value) => ({ part: { $case: 'chunk', value } }),
      );
      return res.refs;
    },
    async backupFile(file) {
      const req: repoAdminV1.BackupFileRequest = { file };
      const { head, chunks } = await describedStream<number, repoAdminV1.BackupFileResponse>(
        raw.backupFile(req, metadataFor(def.backupFile.path, def.backupFile.requestSerialize(req))), 'size',
      );
      return { size: Number(head), chunks };
    },
    async restoreFile(file, replace, bytes) {
      const first: repoAdminV1.RestoreFileRequest = { part: { $case: 'file', value: { file, replace, streamId: randomUUID() } } };
      const md = metadataFor(def.restoreFile.path, def.restoreFile.requestSerialize(first));
      const res = await sendStreamed<repoAdminV1.RestoreFileRequest, repoAdminV1.RestoreFileResponse>(
        (cb) => raw.restoreFile(md, cb), first, bytes, (value) => ({ part: { $case: 'chunk', value } }),
      );
      return res.size;
    },
    close: () => client.close(),
  };
}
