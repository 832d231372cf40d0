import type { repoAdminV1 } from '@glp/proto';

/**
 * GitLab's upload entities: `Entities::ProjectUpload` (`lib/api/entities/project_upload.rb`: id, alt, url, full_path,
 * markdown, built by `FileUploader` with `Gitlab::FileMarkdownLinkBuilder` and `Gitlab::FileTypeDetection`) and
 * `Entities::MarkdownUploadAdmin` (`lib/api/entities/markdown_upload_admin.rb`: id, size, filename, created_at,
 * uploaded_by as `UserSafe`).
 */

/** `Gitlab::FileTypeDetection`'s extension lists. */
const SAFE_IMAGE_EXT = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const SAFE_VIDEO_EXT = ['mp4', 'm4v', 'mov', 'webm', 'ogv'];
const SAFE_AUDIO_EXT = ['mp3', 'oga', 'ogg', 'spx', 'wav'];
const DANGEROUS_IMAGE_EXT = ['svg'];
const PDF_EXT = 'pdf';

/** Ruby's `File.extname(name).delete('.')`, lower-cased (a leading dot is no extension). */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** `embeddable?`: an image, a video or an audio file (rendered in Markdown with `![...]`). */
export const isEmbeddable = (fileName: string) => [...SAFE_IMAGE_EXT, ...SAFE_VIDEO_EXT, ...SAFE_AUDIO_EXT].includes(extensionOf(fileName));
/** `dangerous_embeddable?`: an SVG (embedded too, but always served as an attachment). */
export const isDangerousEmbeddable = (fileName: string) => DANGEROUS_IMAGE_EXT.includes(extensionOf(fileName));
export const isPdf = (fileName: string) => extensionOf(fileName) === PDF_EXT;

/** `FileMarkdownLinkBuilder#markdown_name`: the name without its extension for embeddable files. */
export function markdownName(fileName: string): string {
  if (!isEmbeddable(fileName)) return fileName;
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

/** `FileMarkdownLinkBuilder#markdown_link`: `[name](url)`, `]` escaped, `!` in front for embeddable files and SVGs. */
export function markdownLink(fileName: string, url: string): string {
  const link = `[${markdownName(fileName).replaceAll(']', '\\]')}](${url})`;
  return isEmbeddable(fileName) || isDangerousEmbeddable(fileName) ? `!${link}` : link;
}

/** `FileUploader#secure_url`: `File.join('/uploads', secret, filename)` (no escaping). */
export const secureUrl = (secret: string, fileName: string) => `/uploads/${secret}/${fileName}`;

/** A path segment as Rails' route helpers escape it (`Journey::Router::Utils.escape_segment`). */
const escapeSegment = (s: string) => encodeURIComponent(s).replace(/%(2[146-9BC]|3[ABD]|40)/gi, (m) => decodeURIComponent(m));

/** `banzai_upload_path('project', id, secret, filename)`: `/-/project/<id>/uploads/<secret>/<filename>`. */
export const banzaiUploadPath = (projectId: number, secret: string, fileName: string) =>
  `/-/project/${projectId}/uploads/${escapeSegment(secret)}/${escapeSegment(fileName)}`;

/** `Entities::ProjectUpload`, the answer to POST /projects/:id/uploads. ONE literal. */
export function projectUploadEntity(u: repoAdminV1.Upload) {
  const url = secureUrl(u.secret, u.fileName);
  return {
    id: u.id,
    alt: markdownName(u.fileName),
    url,
    full_path: banzaiUploadPath(u.projectId, u.secret, u.fileName),
    markdown: markdownLink(u.fileName, url),
  };
}

/** `Entities::MarkdownUploadAdmin`, an item of GET /projects/:id/uploads. */
export function markdownUploadAdminEntity(u: repoAdminV1.Upload) {
  return {
    id: u.id,
    size: u.size,
    filename: u.fileName,
    created_at: u.createdAt ? u.createdAt.toISOString() : null,
    uploaded_by: u.uploadedBy ? { id: u.uploadedBy.id, username: u.uploadedBy.username, name: u.uploadedBy.name } : null,
  };
}

/**
 * A project's `avatar_url` (`Avatarable#avatar_url(only_path: false)`): `<external URL>/uploads/-/system/project/avatar/
 * <id>/<file name>`, from the stored avatar the project records (`"<secret>/<file name>"`); null without one.
 */
export function projectAvatarUrl(projectId: number, storedAvatar: string | undefined, web: (path: string) => string): string | null {
  const slash = storedAvatar ? storedAvatar.indexOf('/') : -1;
  if (!storedAvatar || slash < 0) return null;
  return web(`uploads/-/system/project/avatar/${projectId}/${escapeSegment(storedAvatar.slice(slash + 1))}`);
}
