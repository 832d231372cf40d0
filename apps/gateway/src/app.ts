import express, { type Express, type Request } from 'express';
import type { Redis } from 'ioredis';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@glp/service-kit';
import { TokenAuthenticator } from './auth/token-authenticator';
import type { Services } from './clients';
import { errorHandler, HttpError } from './http/errors';
import type { ReadinessProbe } from './http/readiness';
import { registerRoutes } from './http/register-routes';
import { apiHeaders, requestContext } from './http/request-context';
import { urlBuilder } from './presenters/urls';
import { metaRoutes } from './routes/meta-routes';
import { projectRoutes } from './routes/project-routes';
import { userRoutes } from './routes/user-routes';

export interface GatewayDeps {
  services: Services;
  redis?: Redis;
  readiness: ReadinessProbe;
  logger: Logger;
  externalUrl?: string;
  authCacheTtlSeconds: number;
  bodyLimit: string;
  trustProxy: number;
  version: string;
  revision: string;
}

/** The Express application: health, then /api/v4 with GitLab's conventions. No listening here. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  // qs "extended": a[]=1&a[]=2 → arrays, a[b]=c → hashes (Rack's parser, which Grape sees).
  app.set('query parser', 'extended');
  app.set('json spaces', 0);

  app.use(requestContext);
  app.use(pinoHttp({ logger: deps.logger, genReqId: (req) => (req as Request & { id?: string }).id ?? '', autoLogging: { ignore: (req) => req.url?.startsWith('/-/') ?? false } }));

  app.get(['/-/health', '/-/liveness'], (_req, res) => {
    res.type('text/plain').send('GitLab OK');
  });
  app.get('/-/readiness', async (_req, res) => {
    const checks = await deps.readiness.check();
    const ok = Object.values(checks).every((v) => v === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'failed', checks });
  });

  const api = express.Router();
  api.use(apiHeaders);
  api.use(express.json({ limit: deps.bodyLimit, type: ['application/json', 'application/*+json'] }));
  api.use(express.urlencoded({ extended: true, limit: deps.bodyLimit, parameterLimit: 10000 }));
  const authenticator = new TokenAuthenticator(deps.services.identity, deps.redis, deps.authCacheTtlSeconds, deps.logger);
  const configured = deps.externalUrl ? urlBuilder(deps.externalUrl) : undefined;
  const urlsFor = (req: Request) => configured ?? urlBuilder(`${req.protocol}://${req.get('host') ?? 'localhost'}`);
  registerRoutes(api, [...metaRoutes(deps.version, deps.revision), ...userRoutes, ...projectRoutes], {
    services: deps.services,
    authenticator,
    urlsFor,
  });
  // Grape's catch-all for unknown API routes.
  api.use((_req, _res, next) => next(new HttpError(404, { error: '404 Not Found' })));
  app.use('/api/v4', api);
  app.use(errorHandler(deps.logger));
  return app;
}
