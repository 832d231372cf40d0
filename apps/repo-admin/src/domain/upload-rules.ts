import { posix } from 'node:path';
import type { Actor } from '@glp/service-kit';
import { hashedDiskPath } from './hashed-storage';

/**
 * Uploads (GitLab's FileUploader markdown attachments) and project avatars (AvatarUploader): names, places on disk, limits
 * and who may do what. No I/O here.
 */

/** GitLab's `Gitlab::Access::MAINTAINER`. */
const MAINTAINER = 40;

/** The two kinds of upload GitLab's `uploads.uploader` column names. */
export type UploaderKind = 'FileUploader' | 'AvatarUploader';

/** Where uploads live under the storage root (beside `@hashed/` repositories, never inside one). */
export const UPLOADS_DIR = '@uploads';
/** Files being received: written here, then renamed into place (same file system). */
export const UPLOADS_TMP_DIR = `${UPLOADS_DIR}/tmp`;

/** `Avatarable::MAXIMUM_FILE_SIZE` (200 KiB). */
export const AVATAR_MAX_BYTES = 200 * 1024;

/** The message (and the meaning) of an upload beyond its limit: Workhorse answers 413 `Request Entity Too Large`. */
export const TOO_LARGE = 'Request Entity Too Large';

/** GitLab's `max_attachment_size` setting is in megabytes (MiB): the byte limit of one upload. */
export const attachmentLimitBytes = (megabytes: number) => megabytes * 1024 * 1024;

/** A FileUploader secret (`SecureRandom.hex`): 32 lower-case hex digits. Anything else names no upload. */
export const isUploadSecret = (s: string) => /^[0-9a-f]{32}$/.test(s);

/** Ruby's `File.basename` on a `/`-separated path: trailing separators dropped, `/` for a path of separators only. */
function rubyBasename(path: string): string {
  if (path === '') return '';
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * The stored name of an uploaded file, as GitLab's `UploadedFile#sanitize_filename` (copied from
 * `CarrierWave::SanitizedFile#sanitize`) makes it: `\` as `/`, the last path segment, every character that is not a
 * word character (Unicode letters, marks, digits, connector punctuation), `.`, `-` or `+` replaced with `_`, a name of
 * dots only prefixed with `_`, an empty name `unnamed`. The result is never `.`, `..` or anything with a `/`.
 */
export function sanitizeFileName(name: string): string {
  let n = rubyBasename(name.replace(/\\/g, '/'));
  n = n.replace(/[^\p{L}\p{M}\p{Nd}\p{Pc}.\-+]/gu, '_');
  if (/^\.+$/.test(n)) n = `_${n}`;
  return n.length === 0 ? 'unnamed' : n;
}

/** The longest stored name a file system takes (bytes of UTF-8 in one path segment). */
export const MAX_FILE_NAME_BYTES = 255;

/** Problems of a sanitized name, as model errors (`file`), or undefined. */
export function fileNameErrors(sanitized: string): Record<string, string[]> | undefined {
  if (Buffer.byteLength(sanitized) > MAX_FILE_NAME_BYTES) return { file: [`is too long (maximum is ${MAX_FILE_NAME_BYTES} characters)`] };
  return undefined;
}

/** A name the URL of an upload may carry: one that a sanitized name can be (no separator, not `.`/`..`, not empty). */
export const isStoredFileName = (name: string) => name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);

/**
 * The directory of an upload, relative to the storage root: GitLab's hashed layout for attachments
 * (`uploads/@hashed/<2>/<2>/<sha256 of the project id>/<secret>/`), and `uploads/-/system/project/avatar/<id>/` for
 * avatars (one directory per stored avatar, so a new one never overwrites the current one before it is chosen).
 */
export function uploadDir(kind: UploaderKind, projectId: number, secret: string): string {
  if (!Number.isSafeInteger(projectId) || projectId < 1) throw new Error('invalid project id');
  if (!isUploadSecret(secret)) throw new Error('invalid upload secret');
  return kind === 'FileUploader'
    ? posix.join(projectUploadsDir(projectId), secret)
    : posix.join(projectAvatarsDir(projectId), secret);
}

/** Every attachment of a project lives below this directory (relative to the storage root). */
export const projectUploadsDir = (projectId: number) => posix.join(UPLOADS_DIR, hashedDiskPath(projectId).replace(/\.git$/, ''));

/** Every avatar of a project lives below this directory (relative to the storage root). */
export const projectAvatarsDir = (projectId: number) => posix.join(UPLOADS_DIR, '-/system/project/avatar', String(projectId));

/** The file of an upload relative to the storage root; the name must be a stored (sanitized) one. */
export function uploadPath(kind: UploaderKind, projectId: number, secret: string, fileName: string): string {
  if (!isStoredFileName(fileName)) throw new Error('invalid upload file name');
  return posix.join(uploadDir(kind, projectId, secret), fileName);
}

/** `"<secret>/<file name>"`, how projects records a stored avatar; undefined when it is not one. */
export function parseAvatarRef(ref: string): { secret: string; fileName: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash < 0) return undefined;
  const secret = ref.slice(0, slash);
  const fileName = ref.slice(slash + 1);
  return isUploadSecret(secret) && isStoredFileName(fileName) ? { secret, fileName } : undefined;
}

export const avatarRef = (secret: string, fileName: string) => `${secret}/${fileName}`;

/** POST /projects/:id/uploads: `authenticate_non_get!` (a signed-in caller); reading the project is checked by projects. */
export const mayUpload = (actor: Actor) => actor.kind === 'user';

/** GitLab's `admin_upload` / `destroy_upload` (Maintainer and above, administrators): listing, by id, deleting. */
export const mayAdminUploads = (actor: Actor, accessLevel: number) => actor.kind === 'user' && (actor.admin || accessLevel >= MAINTAINER);

/**
 * Storing or pruning a project's avatar: GitLab's `admin_project` (PUT /projects/:id, Maintainer and above,
 * administrators), or the project's creator (an avatar sent with POST /projects, stored right after the project).
 */
export const mayManageAvatar = (actor: Actor, accessLevel: number, creatorId: number) =>
  actor.kind === 'user' && (actor.admin || accessLevel >= MAINTAINER || (creatorId > 0 && creatorId === actor.id));

/** A page of a listing: `LIMIT`/`OFFSET` (page from 1, per_page 1..100 as the gateway clamps it). */
export function pageWindow(page: number, perPage: number): { limit: number; offset: number } {
  const limit = Math.min(Math.max(perPage || 20, 1), 100);
  const p = Math.max(page || 1, 1);
  return { limit, offset: (p - 1) * limit };
}
