import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Level } from 'pino';
import type { Logger } from '@glp/service-kit';
import { userFinder } from './auth/find-user';
import { TokenAuthenticator } from './auth/token-authenticator';
import type { Services } from './clients';
import { errorHandler, HttpError } from './http/errors';
import { accessLog } from './http/access-log';
import { apiRateLimits } from './http/api-rate-limits';
import { movedProjectHandler } from './http/moved-project';
import type { ReadinessProbe } from './http/readiness';
import { registerRoutes } from './http/register-routes';
import { requestUrls } from './http/request-urls';
import { bodyParams } from './http/body-params';
import { queryStringParser, type QueryParser } from './http/query-string';
import { rejectMalformedRequests } from './http/reject-malformed';
import { sendJson } from './http/respond';
import { apiHeaders, requestContext } from './http/request-context';
import { apiRoutes } from './routes';
import { markStreamedBodies } from './http/streamed-body';
import { uploadDownloadRoutes } from './web/upload-downloads';
import { gitHttpRoutes } from './git/git-http-routes';

export interface GatewayDeps {
  services: Services;
  redis?: Redis;
  /** A separate Redis connection subscribed to identity's token invalidations. */
  authSubscriber?: Redis;
  readiness: ReadinessProbe;
  logger: Logger;
  externalUrl?: string;
  authCacheTtlSeconds: number;
  /** In-process token cache: usable tokens, and (shorter) unusable ones. */
  authLocalTtlMs: number;
  authNegativeTtlMs: number;
  /** Level of the one-line access log (a level below LOG_LEVEL turns it off). */
  accessLogLevel: Level;
  /** Where the access log goes (fields fixed and credential-free, so no redaction pass); defaults to `logger`. */
  accessLogger?: Logger;
  bodyLimit: string;
  trustProxy: number;
  version: string;
  revision: string;
  /** Git over HTTP (clone, fetch, push at http_url_to_repo), proxied to repo-admin with a grant signed by ACTOR_SECRET. */
  gitHttp?: { repoAdminUrl: string; actorSecret: string };
}

/** The Express application: health, then /api/v4 with GitLab's conventions. No listening here. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  // qs "extended": a[]=1&a[]=2 → arrays, a[b]=c → hashes (Rack's parser, which Grape sees), flat pairs parsed by a
  // fast path that answers as qs does (query-string.ts).
  app.set('query parser', 'extended');
  app.set('query parser', queryStringParser(app.get('query parser fn') as QueryParser));
  app.set('json spaces', 0);

  app.use(requestContext);
  app.use(accessLog(deps.accessLogger ?? deps.logger, deps.accessLogLevel));
  // GitLab's HandleMalformedStrings: NUL bytes / non-UTF-8 in the path, query or credentials → 400 before any route.
  app.use(rejectMalformedRequests);

  app.get(['/-/health', '/-/liveness'], (_req, res) => {
    res.type('text/plain').send('GitLab OK');
  });
  app.get('/-/readiness', async (_req, res) => {
    const { ready, body } = await deps.readiness.check();
    sendJson(res, ready ? 200 : 503, body);
  });

  const { urlsFor, validHost } = requestUrls(deps.externalUrl);
  const api = express.Router();
  api.use(apiHeaders);
  api.use(validHost);
  const routes = apiRoutes(deps.version, deps.revision);
  // Routes that stream their own multipart body (uploads beyond BODY_LIMIT) are marked before the body parsers run.
  markStreamedBodies(api, routes);
  api.use(bodyParams(deps.bodyLimit));
  const authenticator = new TokenAuthenticator({
    identity: deps.services.identity, redis: deps.redis, subscriber: deps.authSubscriber, redisTtlSeconds: deps.authCacheTtlSeconds,
    localTtlMs: deps.authLocalTtlMs, negativeTtlMs: deps.authNegativeTtlMs, logger: deps.logger,
  });
  // GitLab's Rack::Attack API throttles, once per /api/v4 request (after the body parser: a token may come as a body param).
  if (deps.services.apiRateLimits) api.use(apiRateLimits(deps.services.apiRateLimits, authenticator));
  registerRoutes(api, routes, {
    services: deps.services,
    auth: { authenticator, findUser: userFinder(deps.services.identity) },
    urlsFor,
  });
  // Grape's catch-all for unknown API routes.
  api.use((_req, _res, next) => next(new HttpError(404, { error: '404 Not Found' })));
  // A project reached by an old path as a route's `:id`: 301 to the route with its id (GET/HEAD), else 405.
  api.use(movedProjectHandler(urlsFor));
  // /api/v4 first: everything under it is the API (GitLab reserves `api` as a top-level path), so API requests never
  // walk the routers below.
  app.use('/api/v4', api);
  // Git smart HTTP, outside /api/v4 (its bodies stream to repo-admin: no body parser runs before it).
  if (deps.gitHttp) {
    app.use(gitHttpRoutes({ services: deps.services, authenticator, urlsFor, repoAdminUrl: deps.gitHttp.repoAdminUrl, actorSecret: deps.gitHttp.actorSecret, logger: deps.logger }));
  }
  // Uploads and avatars where GitLab serves them, outside /api/v4 (an upload's `full_path`, a project's `avatar_url`).
  app.use(uploadDownloadRoutes({ services: deps.services, auth: { authenticator, findUser: userFinder(deps.services.identity) }, urlsFor }));
  app.use(errorHandler(deps.logger));
  return app;
}
