import type { projectsV1 } from '@glp/proto';
import { detectContentType } from '../http/content-sniffing';
import { UploadedFile } from '../http/file-param';
import type { Services } from '../clients';

/**
 * A project's avatar on POST /projects and PUT /projects/:id (multipart `avatar`; `avatar=` removes it). GitLab's
 * Project model validates the file with the other attributes and stores it with the save (CarrierWave): here the
 * projects service validates it with the edit (CreateProject / UpdateProject `avatar`), then repo-admin stores the
 * bytes beside the current avatar (StoreAvatar), projects records the new one (SetProjectAvatar, which answers the
 * project), and repo-admin drops every stored avatar but the recorded one (PruneAvatars: the previous avatar, or a new
 * one projects refused).
 */

type AvatarParam = UploadedFile | '' | null | undefined;

/** The type CarrierWave checks: identified from the bytes when they say (an image, an archive...), else as declared. */
export function avatarContentType(file: UploadedFile): string {
  const head = file.buffer.subarray(0, 512);
  if (head.length >= 4 && (head.subarray(0, 4).equals(Buffer.from('II*\0', 'latin1')) || head.subarray(0, 4).equals(Buffer.from('MM\0*', 'latin1')))) {
    return 'image/tiff'; // Go's sniffing has no TIFF; Marcel's magic has
  }
  const sniffed = detectContentType(head);
  if (sniffed === 'image/x-icon') return 'image/vnd.microsoft.icon';
  if (sniffed === 'application/octet-stream' || sniffed.startsWith('text/plain')) return file.mimeType || 'application/octet-stream';
  return sniffed.split(';')[0]!;
}

/** What the projects service validates of an avatar sent along (nothing when none was). */
export function avatarFileOf(avatar: AvatarParam): projectsV1.AvatarFile | undefined {
  if (!(avatar instanceof UploadedFile)) return undefined;
  return { fileName: avatar.originalName, size: avatar.size, contentType: avatarContentType(avatar) };
}

/** Whether the request asks for an avatar change (a file, or `avatar=` / null to remove it). */
export const changesAvatar = (avatar: AvatarParam) => avatar instanceof UploadedFile || avatar === '' || avatar === null;

async function* bytesOf(buffer: Buffer): AsyncGenerator<Buffer> {
  const CHUNK = 64 * 1024;
  for (let i = 0; i < buffer.length; i += CHUNK) yield buffer.subarray(i, i + CHUNK);
}

/**
 * After a create or an edit that validated: stores the new avatar and records it (or removes the avatar for `avatar=`),
 * then prunes the stored ones projects no longer names. Answers the project as it now is.
 */
export async function applyAvatar(
  services: Pick<Services, 'uploads' | 'projects' | 'repoAdmin'>, project: projectsV1.Project, avatar: AvatarParam,
): Promise<projectsV1.Project> {
  if (!changesAvatar(avatar)) return project;
  const byId = { selector: { $case: 'id' as const, value: project.id } };
  try {
    const stored = avatar instanceof UploadedFile
      ? await services.uploads.storeAvatar({ project: byId, fileName: avatar.originalName, contentType: avatarContentType(avatar) }, bytesOf(avatar.buffer))
      : '';
    const { project: updated } = await services.projects.setProjectAvatar({ project: byId, avatar: stored });
    return updated!;
  } finally {
    await services.repoAdmin.pruneAvatars({ project: byId }).catch(() => undefined); // the next change prunes again
  }
}
