import type { ErrorRequestHandler, Request } from 'express';
import type { UrlBuilder } from '../presenters/urls';
import { HttpError } from './errors';

/** GitLab's answer to a non-GET request on a moved project (`lib/api/helpers.rb` `find_project!`). */
export const MOVED_PROJECT_NOT_GET = 'Non GET methods are not allowed for moved projects';

/** The body of GitLab's 301 (`API::API::MovedPermanentlyError`, rendered as plain text by `lib/api/api.rb`). */
export const movedPermanentlyText = (location: string) => `This resource has been moved permanently to ${location}`;

/** A service's `moved` error (libs/service-kit `projectMoved`): the project id the old path leads to. */
export function movedProjectId(err: unknown): number | undefined {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { kind?: unknown; movedToId?: unknown };
  return e.kind === 'moved' && typeof e.movedToId === 'number' && Number.isSafeInteger(e.movedToId) ? e.movedToId : undefined;
}

/**
 * GitLab's `url_with_project_id`: the request's URL (relative to /api/v4, still percent-encoded, query string kept) with
 * the segment of the route's `:id` replaced by the project id; undefined when the route has no `:id`.
 */
export function urlWithProjectId(routePath: string, relativeUrl: string, projectId: number): string | undefined {
  const at = routePath.split('/').indexOf(':id');
  if (at < 0) return undefined;
  const q = relativeUrl.indexOf('?');
  const path = q < 0 ? relativeUrl : relativeUrl.slice(0, q);
  const segments = path.split('/');
  if (at >= segments.length) return undefined;
  segments[at] = String(projectId);
  return segments.join('/') + (q < 0 ? '' : relativeUrl.slice(q));
}

/**
 * Error middleware of the /api/v4 router, in front of the generic error handler: a project reached through an old
 * (redirected) full path as the route's `:id` — the service answered `moved`, after its read check — is GitLab's
 * `find_project!`: GET and HEAD get 301 with `Location` = the same URL with the project id (absolute, from the external
 * URL), any other method 405 `{"message":"Non GET methods are not allowed for moved projects"}`. One place for every
 * route, whichever service raised it (access-requests relays the projects service's answer unchanged).
 *
 * Deliberate difference: GitLab tests `request.get?`, so a HEAD there gets the 405; here HEAD runs the GET route, as
 * everywhere in this gateway, and gets GET's 301 (headers only).
 */
export function movedProjectHandler(urlsFor: (req: Request) => UrlBuilder): ErrorRequestHandler {
  return (err, req, res, next) => {
    const projectId = movedProjectId(err);
    const routePath = typeof req.route?.path === 'string' ? req.route.path : undefined;
    const relative = projectId === undefined || !routePath ? undefined : urlWithProjectId(routePath, req.url, projectId);
    if (relative === undefined || res.headersSent) {
      next(err); // not a moved project (or no `:id` to replace): the generic handler answers (404 Project Not Found)
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next(HttpError.methodNotAllowed(MOVED_PROJECT_NOT_GET));
      return;
    }
    const location = urlsFor(req).api(relative);
    const body = movedPermanentlyText(location);
    // As GitLab's `rack_response(message, 301, { 'Location' => ... })`: plain text, no Content-Type.
    res.statusCode = 301;
    res.setHeader('Location', location);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  };
}
