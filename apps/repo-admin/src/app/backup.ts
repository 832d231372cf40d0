import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { badRequest, conflict, forbidden, notFound, type Actor } from '@glp/service-kit';
import { bundleStream, BundleInvalid, hasAnyRef, restoreFromBundle } from '../disk/bundle';
import { discardTemp, fileSize, FileTooLarge, insideRoot, openUploadFile, placeFile, receiveToTemp } from '../disk/upload-files';
import { isProjectId, isRestorableHead, mayBackUp, restoredRepositoryPath, storedFilePath, type StoredFileKey } from '../domain/backup-rules';
import { AVATAR_MAX_BYTES } from '../domain/upload-rules';
import type { RepoAdminDeps } from './deps';
import { projectRepository } from './project-repository';

type BackupDeps = Pick<RepoAdminDeps, 'git' | 'storageRoot' | 'maxAttachmentBytes'>;

export interface RepositoryBackup {
  exists: boolean;
  empty: boolean;
  head: string;
  /** The bundle of every ref; undefined when the repository is not on disk or has no ref. */
  bundle?: Readable;
}

function checkActor(actor: Actor): void {
  if (!mayBackUp(actor)) throw forbidden('backups are taken by a system actor');
}

/** A repository as a backup holds it: whether it is on disk, its HEAD, and a bundle of its refs when it has any. */
export async function openRepositoryBackup(deps: BackupDeps, actor: Actor, projectId: number, wiki: boolean): Promise<RepositoryBackup> {
  checkActor(actor);
  if (!isProjectId(projectId)) throw badRequest('invalid project id');
  const repo = projectRepository(deps, projectId, wiki);
  if (!repo.exists()) return { exists: false, empty: true, head: '' };
  const head = await repo.headBranch();
  if (!(await hasAnyRef(deps.git, repo.dir))) return { exists: true, empty: true, head };
  return { exists: true, empty: false, head, bundle: bundleStream(deps.git, repo.dir) };
}

export interface RepositoryToRestore {
  projectId: number;
  wiki: boolean;
  empty: boolean;
  head: string;
  replace: boolean;
}

/** Creates a project's repository from a backup's bundle (or an empty one with its HEAD); the refs it has. */
export async function restoreRepository(deps: BackupDeps, actor: Actor, target: RepositoryToRestore, chunks: AsyncIterable<Buffer>): Promise<number> {
  checkActor(actor);
  if (!isProjectId(target.projectId)) throw badRequest('invalid project id');
  if (!isRestorableHead(target.head)) throw badRequest('invalid HEAD branch');
  const dir = insideRoot(deps.storageRoot, restoredRepositoryPath(target.projectId, target.wiki));
  if (existsSync(dir)) {
    if (!target.replace) throw conflict('a repository is already at that path');
    const aside = `${dir}+${Date.now()}+replaced`;
    await rename(dir, aside);
    await rm(aside, { recursive: true, force: true });
  }
  try {
    return await restoreFromBundle(deps.git, deps.storageRoot, dir, target.head, target.empty ? undefined : chunks);
  } catch (err) {
    if (err instanceof BundleInvalid) throw badRequest(err.message);
    throw err;
  }
}

function fileKeyPath(key: StoredFileKey | undefined): string {
  if (!key) throw badRequest('the file is required');
  const where = storedFilePath(key);
  if ('error' in where) throw badRequest(where.error);
  return where.path;
}

/** An upload's or avatar's file as a backup holds it: its size and its bytes. NOT_FOUND when it is not on disk. */
export async function openFileBackup(deps: BackupDeps, actor: Actor, key: StoredFileKey | undefined): Promise<{ size: number; open(): Readable }> {
  checkActor(actor);
  const relative = fileKeyPath(key);
  const size = await fileSize(deps.storageRoot, relative);
  if (size === undefined) throw notFound('File');
  return { size, open: () => openUploadFile(deps.storageRoot, relative) };
}

/** Writes an upload's or avatar's file where its (restored) row says, bounded as an upload of its kind is. */
export async function restoreFile(
  deps: BackupDeps, actor: Actor, key: StoredFileKey | undefined, replace: boolean, chunks: AsyncIterable<Buffer>,
): Promise<number> {
  checkActor(actor);
  const relative = fileKeyPath(key);
  if (!replace && (await fileSize(deps.storageRoot, relative)) !== undefined) throw conflict('a file is already at that path');
  const limit = key!.uploader === 'AvatarUploader' ? AVATAR_MAX_BYTES : deps.maxAttachmentBytes;
  let received: { tmpPath: string; size: number };
  try {
    received = await receiveToTemp(deps.storageRoot, chunks, limit);
  } catch (err) {
    if (err instanceof FileTooLarge) throw badRequest(`the file is larger than ${limit} bytes`);
    throw err;
  }
  try {
    await placeFile(deps.storageRoot, received.tmpPath, relative);
  } catch (err) {
    await discardTemp(received.tmpPath);
    throw err;
  }
  return received.size;
}

