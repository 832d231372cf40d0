import { DomainError, invalid, type Actor, type FieldErrors } from '@glp/service-kit';
import { ACCESS } from './visibility';

/**
 * A project's avatar (GitLab's `Avatarable` concern and `AvatarUploader`): which files may be one, and who may set it.
 * The bytes live in repo-admin; a project records the stored file as `"<secret>/<file name>"`. Pure.
 */

/** `AvatarUploader::MIME_ALLOWLIST`, in its order (CarrierWave's content type check; the message lists them). */
export const AVATAR_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp', 'image/tiff', 'image/vnd.microsoft.icon'] as const;
/** `Gitlab::FileTypeDetection::SAFE_IMAGE_EXT` (`Avatarable#avatar_type`), in its order. */
export const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'] as const;
/** `Avatarable::MAXIMUM_FILE_SIZE`: 200 KiB. */
export const AVATAR_MAX_BYTES = 200 * 1024;

/** GitLab's locale overrides CarrierWave's `content_type_whitelist_error` with this wording. */
const unsupported = (formats: readonly string[]) => `file format is not supported. Please try one of the following supported formats: ${formats.join(', ')}`;

/** The extension of a file name as Ruby's `File.extname` sees it (of the last path segment; none for dot-files). */
function extension(fileName: string): string {
  const base = fileName.replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1) : '';
}

/**
 * The Project model's errors for an avatar file, in GitLab's order: CarrierWave's content type allowlist (checked when
 * the file is assigned; a refused file is not assigned, so nothing else is checked), then `avatar_type` (the extension
 * must be an image's) and `FileSizeValidator` (at most 200 KB).
 */
export function avatarErrors(file: { fileName: string; size: number; contentType: string }): string[] {
  const type = file.contentType.trim().toLowerCase();
  // CarrierWave matches each allowed type as a prefix of the content type (`/\A#{Regexp.quote(item)}/`).
  if (!AVATAR_CONTENT_TYPES.some((allowed) => type.startsWith(allowed))) return [unsupported(AVATAR_CONTENT_TYPES)];
  const problems: string[] = [];
  if (!(AVATAR_EXTENSIONS as readonly string[]).includes(extension(file.fileName).toLowerCase())) problems.push(unsupported(AVATAR_EXTENSIONS));
  if (file.size > AVATAR_MAX_BYTES) problems.push('is too big (should be at most 200 KB)');
  return problems;
}

/**
 * Runs a validation that throws INVALID with field errors (`planProjectEdit`, `buildNewProject`) and adds the avatar's
 * problems to them, as the model reports every error of one save together.
 */
export function withAvatarErrors<T>(problems: readonly string[], validate: () => T): T {
  if (problems.length === 0) return validate();
  let fields: FieldErrors = {};
  try {
    validate();
  } catch (err) {
    if (!(err instanceof DomainError && err.kind === 'invalid' && err.fields)) throw err;
    fields = err.fields;
  }
  throw invalid({ ...fields, avatar: [...problems] });
}

/** A stored avatar as projects records it: `"<32 hex digits>/<file name>"` (a name without a separator), or empty for none. */
export function isAvatarRef(ref: string): boolean {
  if (ref === '') return true;
  const m = /^[0-9a-f]{32}\/(.+)$/.exec(ref);
  return !!m && m[1] !== '.' && m[1] !== '..' && !/[/\\\0]/.test(m[1]!) && (AVATAR_EXTENSIONS as readonly string[]).includes(extension(m[1]!).toLowerCase());
}

/**
 * Setting the avatar: GitLab's `admin_project` (Maintainer and above, administrators), or the project's creator (an
 * avatar sent with POST /projects is stored right after the project exists).
 */
export const maySetAvatar = (actor: Actor, access: number, creatorId: number) =>
  actor.kind === 'user' && (actor.admin || access >= ACCESS.MAINTAINER || (creatorId > 0 && actor.id === creatorId));
