import type { repoAdminV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { contentDisposition } from '../http/content-disposition';
import { HttpError } from '../http/errors';
import { textResult } from '../http/file-download';
import { isUnsafeFilePath } from '../http/file-path';
import { isMultipart, readUntilFile } from '../http/multipart-file-stream';
import { pageResult, paginationParams, parsePagination } from '../http/pagination';
import { defineParams, p } from '../http/params';
import { route, type RouteDef, type RouteResult } from '../http/route';
import { markdownUploadAdminEntity, projectUploadEntity } from '../presenters/upload';
import type { DownloadedFile } from '../upload-streams';
import { requireProject } from './project-member-routes';

/**
 * Project uploads (`lib/api/markdown_uploads.rb`), kept by repo-admin (bytes on its storage, rows in its schema), which
 * asks projects as the caller who may do what:
 * - POST /projects/:id/uploads (multipart `file`): a signed-in caller who may read the project; 201 `ProjectUpload`.
 *   The body streams through (never held whole): text fields up to the file, then the file's bytes to repo-admin. No
 *   file is Grape's 400 `file is missing` (text in its place: `file is invalid`); a file beyond MAX_ATTACHMENT_SIZE is
 *   Workhorse's 413 `Request Entity Too Large` (text/plain; `workhorse/internal/upload/rewrite.go`).
 * - GET /projects/:id/uploads (Maintainer, paginated, newest first): `MarkdownUploadAdmin` items.
 * - GET /projects/:id/uploads/:upload_id (Maintainer) and /:secret/:filename (read_upload): the file, as
 *   `present_carrierwave_file!` → `present_disk_file!` sends it (application/octet-stream, attachment).
 * - DELETE /projects/:id/uploads/:upload_id or /:secret/:filename (Maintainer): 204.
 */

const projectRef = (id: string | null | undefined): repoAdminV1.ProjectRef => requireProject(id);

/** repo-admin's word for an upload beyond its limit. */
const TOO_LARGE = 'Request Entity Too Large';

/** Grape's `requires :filename, type: String, file_path: true` (`API::Validations::Validators::FilePath`). */
function checkedFileName(name: string | null | undefined): string {
  if (name === null || name === undefined || isUnsafeFilePath(name)) throw HttpError.paramError('filename should be a valid file path');
  return name;
}

/** `present_disk_file!`: the bytes as an attachment, application/octet-stream, binary transfer. */
function fileResult(d: DownloadedFile): RouteResult {
  return {
    stream: d.body,
    headers: {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': contentDisposition('attachment', d.file.fileName),
      'Content-Transfer-Encoding': 'binary',
      'Content-Length': String(d.file.size),
    },
  };
}

const secretAndName = defineParams({ id: p.string().required(), secret: p.string().required(), filename: p.string().required() });
const byId = defineParams({ id: p.string().required(), upload_id: p.integer().required() });

export const uploadRoutes: RouteDef[] = [
  // GET /projects/:id/avatar (`lib/api/project_avatar.rb`, GitLab 16.9): whoever may read the project; the avatar as an
  // attachment, `404 Avatar Not Found` without one.
  route({
    method: 'GET', path: '/projects/:id/avatar', access: 'public', produces: 'application/octet-stream', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => fileResult(await services.uploads.downloadAvatar({ project: projectRef(params.id), fileName: '' })),
  }),

  route({
    method: 'POST', path: '/projects/:id/uploads', access: 'user', streamsBody: true,
    params: defineParams({ id: p.string().required() }),
    handler: async ({ req, params, services }) => {
      const project = projectRef(params.id);
      if (!isMultipart(req)) {
        // A JSON or form body (already parsed): no file can be there.
        const sent = (req.body as Record<string, unknown> | undefined)?.file;
        throw HttpError.paramError(sent === undefined ? 'file is missing' : 'file is invalid');
      }
      const read = await readUntilFile(req, 'file');
      if (read.kind === 'malformed') return textResult(400, 'Bad Request', 'text/plain');
      if (!read.file) {
        read.discard();
        throw HttpError.paramError(read.fields.file !== undefined ? 'file is invalid' : 'file is missing');
      }
      try {
        const upload = await services.uploads.createUpload(
          { project, fileName: read.file.fileName, contentType: read.file.mimeType }, read.file.stream,
        );
        return { status: 201, body: projectUploadEntity(upload) };
      } catch (err) {
        read.discard();
        if (err instanceof DomainError && err.kind === 'rejected' && err.message === TOO_LARGE) return textResult(413, `${TOO_LARGE}\n`);
        // The body broke off (the client went away, or the multipart body is malformed after the file began).
        if (!(err instanceof DomainError) && !(err instanceof HttpError)) return textResult(400, 'Bad Request', 'text/plain');
        throw err;
      }
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/uploads', access: 'public',
    params: defineParams({ id: p.string().required(), ...paginationParams }),
    handler: async ({ req, params, services, urls }) => {
      const page = parsePagination(params);
      const { uploads, total } = await services.repoAdmin.listUploads({ project: projectRef(params.id), page: page.page, perPage: page.perPage });
      return pageResult(req, urls.base, page, uploads.map(markdownUploadAdminEntity), Number(total));
    },
  }),

  route({
    method: 'GET', path: '/projects/:id/uploads/:upload_id', access: 'public', produces: 'application/octet-stream', params: byId,
    handler: async ({ params, services }) =>
      fileResult(await services.uploads.downloadUpload({ project: projectRef(params.id), uploadId: params.upload_id ?? 0, secret: '', fileName: '' })),
  }),

  route({
    method: 'GET', path: '/projects/:id/uploads/:secret/:filename', access: 'public', produces: 'application/octet-stream', params: secretAndName,
    handler: async ({ params, services }) => {
      const fileName = checkedFileName(params.filename);
      return fileResult(await services.uploads.downloadUpload({ project: projectRef(params.id), uploadId: 0, secret: params.secret || '-', fileName }));
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/uploads/:upload_id', access: 'user', params: byId,
    handler: async ({ params, services }) => {
      await services.repoAdmin.deleteUpload({ project: projectRef(params.id), uploadId: params.upload_id ?? 0, secret: '', fileName: '' });
      return { status: 204 };
    },
  }),

  route({
    method: 'DELETE', path: '/projects/:id/uploads/:secret/:filename', access: 'user', params: secretAndName,
    handler: async ({ params, services }) => {
      const fileName = checkedFileName(params.filename);
      await services.repoAdmin.deleteUpload({ project: projectRef(params.id), uploadId: 0, secret: params.secret || '-', fileName });
      return { status: 204 };
    },
  }),
];
