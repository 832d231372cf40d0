import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { currentContext, DomainError, runWithContext, type Actor } from '@glp/service-kit';
import type { Services } from '../clients';
import { authenticate, type AuthDeps } from '../http/authenticate';
import { contentDisposition } from '../http/content-disposition';
import { MAX_DETECT_SIZE, safeContentHeaders } from '../http/content-sniffing';
import { toHttpError } from '../http/errors';
import { peekHead } from '../http/file-download';
import { isUnsafeFilePath } from '../http/file-path';
import { sendJson } from '../http/respond';
import { sendStream } from '../http/send-stream';
import { isEmbeddable, isPdf } from '../presenters/upload';
import type { UrlBuilder } from '../presenters/urls';
import type { DownloadedFile } from '../upload-streams';

/**
 * Uploads and avatars where GitLab serves them, outside /api/v4 (Rails controllers behind Workhorse):
 * - GET /-/project/:id/uploads/:secret/:filename (`Banzai::UploadsController`, the `full_path` of an upload): whoever
 *   may read the project;
 * - GET /uploads/-/system/project/avatar/:id/:filename (`UploadsController`, a project's `avatar_url`): whoever may read
 *   the project, the current avatar only.
 * Answers as GitLab's: a `..` file name is 400 with no body (`check_path_traversal!`, `head :bad_request`); a project the
 * caller may not read is a redirect to the sign-in page for an anonymous caller (`authenticate_user!`) and 404 for a
 * signed-in one; a missing file is 404. The file goes with Rails' `send_file` headers and Workhorse's content detection
 * (`workhorse_set_content_type!`: the type from the bytes, the disposition adjusted to it), `Cache-Control` as
 * `expires_in` sets it. The caller is whoever the token says (header or `private_token`), as on the API.
 */

export interface UploadDownloadDeps {
  services: Pick<Services, 'uploads'>;
  auth: AuthDeps;
  urlsFor(req: Request): UrlBuilder;
}

/** Rails' `public/404.html` stands for GitLab's not-found page. */
function notFoundPage(res: Response): void {
  res.status(404).type('text/html; charset=utf-8').send('<!DOCTYPE html>\n<html><head><title>Not Found (404)</title></head><body><h1>404</h1><p>Page not found</p></body></html>\n');
}

/** `authenticate_user!` for a browser: 302 to the sign-in page (Rails' `redirect_to` body). */
function toSignIn(res: Response, urls: UrlBuilder): void {
  const location = urls.web('users/sign_in');
  res.status(302).setHeader('Location', location);
  res.type('text/html; charset=utf-8').send(`<html><body>You are being <a href="${location}">redirected</a>.</body></html>`);
}

/** The disposition Rails proposes (`UploadsActions#content_disposition`): inline for embeddable files and PDFs. */
const proposedDisposition = (fileName: string): 'inline' | 'attachment' =>
  isEmbeddable(fileName) || isPdf(fileName) ? 'inline' : 'attachment';

async function sendStoredFile(res: Response, d: DownloadedFile, cacheControl: string): Promise<void> {
  const { head, body } = await peekHead(d.body, MAX_DETECT_SIZE);
  const proposed = contentDisposition(proposedDisposition(d.file.fileName), d.file.fileName);
  const { contentType, contentDisposition: disposition } = safeContentHeaders(head, proposed);
  await sendStream(res, 200, body, {
    'Content-Type': contentType,
    'Content-Disposition': disposition,
    'Content-Transfer-Encoding': 'binary',
    'Content-Length': String(d.file.size),
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'SAMEORIGIN',
    ...(d.file.createdAt ? { 'Last-Modified': d.file.createdAt.toUTCString() } : {}),
  });
}

/** A download route: the caller, the checks GitLab makes before the controller runs, then `fetch` as that caller. */
function downloadRoute(
  deps: UploadDownloadDeps, cacheControl: string, fetch: (projectId: number, req: Request) => Promise<DownloadedFile>,
) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const id = String(req.params.id ?? '');
      const filename = String(req.params.filename ?? '');
      if (isUnsafeFilePath(filename)) {
        res.status(400).end();
        return;
      }
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) {
        notFoundPage(res); // `Model.find(id)`: no such record
        return;
      }
      const { actor } = await authenticate(req, { method: 'GET', access: 'public' }, deps.auth);
      const requestId = currentContext()?.requestId ?? String(res.getHeader('X-Request-Id') ?? '');
      await runWithContext({ requestId, actor }, async () => {
        let file: DownloadedFile;
        try {
          file = await fetch(Number(id), req);
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'not_found') {
            if (err.message === 'Project' && isAnonymous(actor)) toSignIn(res, deps.urlsFor(req));
            else notFoundPage(res);
            return;
          }
          throw err;
        }
        await sendStoredFile(res, file, cacheControl);
      });
    } catch (err) {
      if (res.headersSent) {
        next(err);
        return;
      }
      const { error } = toHttpError(err);
      sendJson(res, error.status, error.body, error.headers);
    }
  };
}

const isAnonymous = (a: Actor) => a.kind !== 'user';

export function uploadDownloadRoutes(deps: UploadDownloadDeps): Router {
  const router = express.Router();
  // `Banzai::UploadsController` (`expires_in 0, private: true, must_revalidate: true`).
  router.get('/-/project/:id/uploads/:secret/:filename', downloadRoute(deps, 'max-age=0, private, must-revalidate', (projectId, req) =>
    deps.services.uploads.downloadUpload({ project: { selector: { $case: 'id', value: projectId } }, uploadId: 0, secret: String(req.params.secret ?? '') || '-', fileName: String(req.params.filename ?? '') })));
  // `UploadsController` for a project's avatar (`cache_settings`: 5 minutes, private, must revalidate).
  router.get('/uploads/-/system/project/avatar/:id/:filename', downloadRoute(deps, 'max-age=300, private, must-revalidate', (projectId, req) =>
    deps.services.uploads.downloadAvatar({ project: { selector: { $case: 'id', value: projectId } }, fileName: String(req.params.filename ?? '') })));
  return router;
}
