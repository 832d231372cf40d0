import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { withTransaction } from '@glp/db';
import { repoAdminV1 } from '@glp/proto';
import {
  badRequest, DomainError, forbidden, invalid, notFound, recordNotFound, rejected, unauthenticated, type Actor,
} from '@glp/service-kit';
import {
  discardTemp, fileSize, FileTooLarge, openUploadFile, placeFile, receiveToTemp, removeUploadFile,
} from '../disk/upload-files';
import {
  fileNameErrors, isStoredFileName, isUploadSecret, mayAdminUploads, mayUpload, pageWindow, sanitizeFileName, TOO_LARGE, uploadPath,
  type UploaderKind,
} from '../domain/upload-rules';
import { deleteUploadRow, findUploadById, findUploadByName, insertUpload, listUploadsPage, type UploadRow } from '../store/uploads-store';
import { userById } from './users';
import type { RepoAdminDeps } from './deps';
import { projectForUploads } from './upload-access';


/** What the stream handlers need besides the common deps: the byte limit of an attachment (MAX_ATTACHMENT_SIZE). */
export type UploadDeps = Pick<RepoAdminDeps, 'pool' | 'projects' | 'identity' | 'storageRoot' | 'logger' | 'maxAttachmentBytes'>;

/** A new 32-hex-digit secret (GitLab's `SecureRandom.hex`). */
export const newSecret = () => randomBytes(16).toString('hex');

/**
 * Receives a file into its place and records its row: the bytes to a temporary file (`limit`), renamed to
 * `uploadPath(kind, project, secret, name)`, then the row. Any failure leaves neither file nor row.
 */
export async function storeFile(
  deps: UploadDeps,
  kind: UploaderKind,
  file: { projectId: number; fileName: string; contentType: string; uploadedBy: number },
  chunks: AsyncIterable<Buffer>,
  limit: number,
  tooLarge: () => DomainError,
): Promise<UploadRow> {
  let received: { tmpPath: string; size: number };
  try {
    received = await receiveToTemp(deps.storageRoot, chunks, limit);
  } catch (err) {
    if (err instanceof FileTooLarge) throw tooLarge();
    throw err;
  }
  const secret = newSecret();
  const relative = uploadPath(kind, file.projectId, secret, file.fileName);
  try {
    await placeFile(deps.storageRoot, received.tmpPath, relative);
  } catch (err) {
    await discardTemp(received.tmpPath);
    throw err;
  }
  try {
    return await insertUpload(deps.pool, {
      projectId: file.projectId, uploader: kind, secret, fileName: file.fileName, size: received.size,
      contentType: file.contentType || 'application/octet-stream', uploadedBy: file.uploadedBy,
    });
  } catch (err) {
    await removeUploadFile(deps.storageRoot, relative);
    throw err;
  }
}

/** The stored name of a file a client named, or the model's 400 when a file system could not hold it. */
export function storedName(clientName: string): string {
  const name = sanitizeFileName(clientName);
  const errors = fileNameErrors(name);
  if (errors) throw invalid(errors);
  return name;
}

/**
 * POST /projects/:id/uploads (`lib/api/markdown_uploads.rb`: `authenticate_non_get!`, `user_project`, then
 * `UploadService` with the project's `max_attachment_size`): a signed-in caller who may read the project; the file
 * under MAX_ATTACHMENT_SIZE (beyond: `rejected` TOO_LARGE, which the gateway answers as Workhorse does, 413).
 */
export async function createUpload(
  deps: UploadDeps, actor: Actor, first: repoAdminV1.NewFile, chunks: AsyncIterable<Buffer>,
): Promise<UploadRow> {
  if (!mayUpload(actor)) throw unauthenticated();
  const project = await projectForUploads(deps, actor, first.project);
  const fileName = storedName(first.fileName);
  return storeFile(deps, 'FileUploader', { projectId: project.id, fileName, contentType: first.contentType, uploadedBy: actor.id }, chunks,
    deps.maxAttachmentBytes, () => rejected(TOO_LARGE));
}

/** Uploads as the API shows them, with their uploaders (identity's users, read as this service; a deleted one is left out). */
async function withUploaders(deps: UploadDeps, rows: UploadRow[]): Promise<repoAdminV1.Upload[]> {
  const ids = [...new Set(rows.map((r) => r.uploaded_by).filter((id): id is number => id !== null))];
  const users = new Map<number, repoAdminV1.Uploader>();
  await Promise.all(ids.map(async (id) => {
    const user = await userById(deps, id);
    if (user) users.set(id, { id: user.id, username: user.username, name: user.name });
  }));
  return rows.map((r) => toUpload(r, r.uploaded_by === null ? undefined : users.get(r.uploaded_by)));
}

export function toUpload(r: UploadRow, uploadedBy?: repoAdminV1.Uploader): repoAdminV1.Upload {
  return repoAdminV1.Upload.fromPartial({
    id: r.id, projectId: r.project_id, secret: r.secret, fileName: r.filename, size: r.size, contentType: r.content_type,
    createdAt: r.created_at, uploadedBy,
  });
}

/** GET /projects/:id/uploads (`authorize! :admin_upload`: Maintainer; 403 below): newest first, a page and the total. */
export async function listUploads(
  deps: UploadDeps, actor: Actor, req: repoAdminV1.ListUploadsRequest,
): Promise<{ uploads: repoAdminV1.Upload[]; total: number }> {
  const project = await projectForUploads(deps, actor, req.project);
  if (!mayAdminUploads(actor, project.accessLevel)) throw forbidden();
  const { limit, offset } = pageWindow(req.page, req.perPage);
  const { rows, total } = await listUploadsPage(deps.pool, project.id, limit, offset);
  return { uploads: await withUploaders(deps, rows), total };
}

/** A stored file ready to be streamed: its row, its size on disk, and a reader. */
export interface OpenedFile {
  row: UploadRow;
  size: number;
  open(): ReadStream;
}

/** The file of a row, or NOT_FOUND (`message`) when its bytes are gone (GitLab: `file&.exists?` else `not_found!`). */
export async function openStored(deps: Pick<UploadDeps, 'storageRoot'>, row: UploadRow, missing: () => DomainError): Promise<OpenedFile> {
  const relative = uploadPath(row.uploader, row.project_id, row.secret, row.filename);
  const size = await fileSize(deps.storageRoot, relative);
  if (size === undefined) throw missing();
  return { row, size, open: () => openUploadFile(deps.storageRoot, relative) };
}

/**
 * The upload a download or a delete names: by secret and file name when a secret is given (`read_upload`: whoever may
 * read the project; a missing one is `undefined`), else by id (`admin_upload`: Maintainer, else 403; a missing one is
 * RecordNotFound, 404 "Not found").
 */
async function namedUpload(
  deps: UploadDeps, actor: Actor, req: { project?: repoAdminV1.ProjectRef; uploadId: number; secret: string; fileName: string }, adminOnly: boolean,
): Promise<UploadRow | undefined> {
  const project = await projectForUploads(deps, actor, req.project);
  const byId = req.secret === '';
  if ((adminOnly || byId) && !mayAdminUploads(actor, project.accessLevel)) throw forbidden();
  if (byId) {
    const row = await findUploadById(deps.pool, project.id, req.uploadId);
    if (!row) throw recordNotFound();
    return row;
  }
  // FileUploader::InvalidSecret and names no upload can have: no such upload (the finder answers nil).
  if (!isUploadSecret(req.secret) || !isStoredFileName(req.fileName)) return undefined;
  return findUploadByName(deps.pool, 'FileUploader', project.id, req.secret, req.fileName);
}

/**
 * GET /projects/:id/uploads/:upload_id (Maintainer) and /:secret/:filename (read_upload): `present_carrierwave_file!`,
 * `not_found!` (404 "404 Not Found") when there is no such upload or its file is gone.
 */
export async function openUploadDownload(deps: UploadDeps, actor: Actor, req: repoAdminV1.DownloadUploadRequest): Promise<OpenedFile> {
  const row = await namedUpload(deps, actor, req, false);
  if (!row) throw notFound();
  return openStored(deps, row, () => notFound());
}

/** `Uploads::DestroyService`'s refusal (400 `bad_request!`): no such upload, or no right to delete it. */
export const CANNOT_DELETE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action.";

/**
 * DELETE /projects/:id/uploads/:upload_id or /:secret/:filename (`authorize! :destroy_upload`: Maintainer, else 403):
 * the row goes, then its file (and its emptied directory). A missing upload by id is 404 "Not found"; by name,
 * `Uploads::DestroyService` answers 400 with CANNOT_DELETE.
 */
export async function deleteUpload(deps: UploadDeps, actor: Actor, req: repoAdminV1.DeleteUploadRequest): Promise<void> {
  const row = await namedUpload(deps, actor, req, true);
  if (!row) throw badRequest(CANNOT_DELETE);
  const deleted = await withTransaction(deps.pool, (client) => deleteUploadRow(client, row.id));
  if (!deleted) throw badRequest(CANNOT_DELETE);
  await removeUploadFile(deps.storageRoot, uploadPath(row.uploader, row.project_id, row.secret, row.filename));
}
