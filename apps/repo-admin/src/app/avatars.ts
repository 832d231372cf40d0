import { withTransaction } from '@glp/db';
import type { repoAdminV1 } from '@glp/proto';
import { forbidden, invalid, notFound, unauthenticated, type Actor } from '@glp/service-kit';
import { removeTree, removeUploadFile } from '../disk/upload-files';
import {
  AVATAR_MAX_BYTES, avatarRef, mayManageAvatar, parseAvatarRef, projectAvatarsDir, projectUploadsDir, uploadPath,
} from '../domain/upload-rules';
import { avatarsOf, deleteProjectUploads, deleteUploadRow, findUploadByName } from '../store/uploads-store';
import type { PoolClient } from '@glp/db';
import type { RepoAdminDeps } from './deps';
import { projectForUploads } from './upload-access';
import { openStored, storedName, storeFile, type OpenedFile, type UploadDeps } from './uploads';

/** `FileSizeValidator` (`lib/file_size_validator.rb`, maximum 200.kilobytes) as the Project model words it. */
const AVATAR_TOO_BIG = { avatar: ['is too big (should be at most 200 KB)'] };

/**
 * A new avatar's bytes for a project (PUT /projects/:id or POST /projects with a multipart `avatar`): Maintainers (GitLab's
 * `admin_project`) or the project's creator; at most 200 KiB (the projects service checked the type and size before;
 * this is the storage's own bound). Stored beside the current avatar, never over it; answers the reference projects
 * records with SetProjectAvatar.
 */
export async function storeAvatar(deps: UploadDeps, actor: Actor, first: repoAdminV1.NewFile, chunks: AsyncIterable<Buffer>): Promise<string> {
  if (actor.kind !== 'user') throw unauthenticated();
  const project = await projectForUploads(deps, actor, first.project);
  if (!mayManageAvatar(actor, project.accessLevel, project.creatorId)) throw forbidden();
  const fileName = storedName(first.fileName);
  const row = await storeFile(deps, 'AvatarUploader', { projectId: project.id, fileName, contentType: first.contentType, uploadedBy: actor.id },
    chunks, AVATAR_MAX_BYTES, () => invalid(AVATAR_TOO_BIG));
  return avatarRef(row.secret, row.filename);
}

/**
 * GET /uploads/-/system/project/avatar/:id/:filename (`UploadsController#show`: `read_project`): the project's current
 * avatar, when the URL names it; NOT_FOUND otherwise. Without a file name (GET /projects/:id/avatar,
 * `lib/api/project_avatar.rb`), whatever the avatar is called; none is `not_found!('Avatar')`.
 */
export async function openAvatarDownload(deps: UploadDeps, actor: Actor, req: repoAdminV1.DownloadAvatarRequest): Promise<OpenedFile> {
  const project = await projectForUploads(deps, actor, req.project);
  const current = parseAvatarRef(project.avatar);
  if (!current) throw notFound(req.fileName === '' ? 'Avatar' : '');
  if (req.fileName !== '' && current.fileName !== req.fileName) throw notFound();
  const row = await findUploadByName(deps.pool, 'AvatarUploader', project.id, current.secret, current.fileName);
  if (!row) throw notFound();
  return openStored(deps, row, () => notFound());
}

/**
 * Removes the project's stored avatars but the one projects names as its avatar (after SetProjectAvatar replaced or
 * removed it, or refused a new one): Maintainers or the creator, like storing. Rows first, then files.
 */
export async function pruneAvatars(deps: UploadDeps, actor: Actor, ref: repoAdminV1.ProjectRef | undefined): Promise<number> {
  if (actor.kind !== 'user') throw unauthenticated();
  const project = await projectForUploads(deps, actor, ref);
  if (!mayManageAvatar(actor, project.accessLevel, project.creatorId)) throw forbidden();
  const current = parseAvatarRef(project.avatar);
  const stale = (await avatarsOf(deps.pool, project.id)).filter((a) => !(current && a.secret === current.secret && a.filename === current.fileName));
  for (const a of stale) {
    if (await withTransaction(deps.pool, (client) => deleteUploadRow(client, a.id))) {
      await removeUploadFile(deps.storageRoot, uploadPath(a.uploader, a.project_id, a.secret, a.filename));
    }
  }
  return stale.length;
}

/**
 * A project removed for good (its `remove` job): its attachments' and avatars' directories leave the disk (renamed aside,
 * then deleted); `forgetProjectUploads` drops the rows in the job's closing transaction.
 */
export async function removeProjectUploadFiles(deps: Pick<RepoAdminDeps, 'storageRoot'>, projectId: number): Promise<void> {
  await removeTree(deps.storageRoot, projectUploadsDir(projectId));
  await removeTree(deps.storageRoot, projectAvatarsDir(projectId));
}

export const forgetProjectUploads = (client: PoolClient, projectId: number) => deleteProjectUploads(client, projectId);
