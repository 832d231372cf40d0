import type { NextFunction, Request, Response, Router } from 'express';
import { currentContext, runWithContext } from '@glp/service-kit';
import type { Services } from '../clients';
import type { UrlBuilder } from '../presenters/urls';
import { authenticate, type AuthDeps } from './authenticate';
import { HttpError } from './errors';
import { mergeParams, parseParams } from './params';
import { sendJson } from './respond';
import { sendStream } from './send-stream';
import type { RouteDef } from './route';

export interface RouteDeps {
  services: Services;
  auth: AuthDeps;
  /** The external URL for this request (config, or derived from Host). */
  urlsFor(req: Request): UrlBuilder;
}

/**
 * Mounts route definitions: authenticate → merge and validate params (Grape's 400s) →
 * handler inside the request context (so gRPC calls carry the actor) → JSON response (`sendJson`).
 * Express routes HEAD to the GET handler: same status and headers (X-Total, Link, Content-Length), no body.
 */
export function registerRoutes(router: Router, defs: readonly RouteDef[], deps: RouteDeps): void {
  for (const def of defs) {
    const method = def.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const operation = `${def.method} ${def.path}`;
    router[method](def.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const { actor, user, tokenId } = await authenticate(req, def, deps.auth);
        const parsed = parseParams(def.params, mergeParams({ query: req.query, body: req.body, params: req.params as Record<string, string> }));
        if (!parsed.ok) throw HttpError.paramError(parsed.error);
        const run = () => def.handler({ req, res, actor, user, tokenId, params: parsed.value, urls: deps.urlsFor(req), services: deps.services });
        // The request's own context (requestContext) learns its caller and operation: one context per request.
        const ctx = currentContext();
        let result: Awaited<ReturnType<typeof run>>;
        if (ctx) {
          ctx.actor = actor;
          ctx.operation = operation;
          result = await run();
        } else {
          result = await runWithContext({ requestId: String(res.getHeader('X-Request-Id') ?? ''), actor, operation }, run);
        }
        if (result.stream) await sendStream(res, result.status ?? 200, result.stream, result.headers);
        else sendJson(res, result.status ?? 200, result.body, result.headers);
      } catch (err) {
        next(err);
      }
    });
  }
}
