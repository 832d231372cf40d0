import type { Actor } from '@glp/service-kit';
import { hashedDiskPath, hashedWikiPath } from './hashed-storage';
import { isStoredFileName, isUploadSecret, uploadPath, type UploaderKind } from './upload-rules';

/**
 * Backups and restores of repositories and stored files: who may take them and which paths they name. No I/O here.
 */

/** Only a service acting on its own (the backup CLI, signed with ACTOR_SECRET) reads or writes whole repositories. */
export const mayBackUp = (actor: Actor) => actor.kind === 'system';

/** A branch name HEAD may point at after a restore: what `git check-ref-format --branch` would take, bounded. */
export const isRestorableHead = (head: string) =>
  head.length > 0 && head.length <= 255 && /^[A-Za-z0-9._\-/]+$/.test(head) && !head.startsWith('/') && !head.endsWith('/') &&
  !head.includes('..') && !head.includes('//') && !head.endsWith('.lock') && !head.startsWith('-');

/** A project id a repository or file of a backup may belong to. */
export const isProjectId = (id: number) => Number.isSafeInteger(id) && id > 0;

export interface StoredFileKey {
  projectId: number;
  uploader: string;
  secret: string;
  fileName: string;
}

/** Where a stored file's row says it lives (relative to the storage root), or a reason it names no file. */
export function storedFilePath(key: StoredFileKey): { path: string } | { error: string } {
  if (!isProjectId(key.projectId)) return { error: 'invalid project id' };
  if (key.uploader !== 'FileUploader' && key.uploader !== 'AvatarUploader') return { error: 'uploader must be FileUploader or AvatarUploader' };
  if (!isUploadSecret(key.secret)) return { error: 'invalid upload secret' };
  if (!isStoredFileName(key.fileName) || Buffer.byteLength(key.fileName) > 255) return { error: 'invalid file name' };
  return { path: uploadPath(key.uploader as UploaderKind, key.projectId, key.secret, key.fileName) };
}

/** The repository a restore writes (relative to the storage root): the hashed path of the project, as its record names it. */
export const restoredRepositoryPath = (projectId: number, wiki: boolean) =>
  wiki ? hashedWikiPath(projectId) : hashedDiskPath(projectId);
