import type { NextFunction, Request, Response, Router } from 'express';
import type { RouteDef } from './route';

/**
 * Routes that read their own body as a stream (`RouteDef.streamsBody`: a file larger than BODY_LIMIT, as GitLab's
 * Workhorse streams uploads): the body parsers leave their multipart bodies unread. Marked by a middleware mounted on
 * the same paths before the parsers.
 */
const streamed = new WeakSet<object>();

export function markStreamedBodies(router: Router, defs: readonly RouteDef[]): void {
  for (const def of defs) {
    if (!def.streamsBody) continue;
    const method = def.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](def.path, (req: Request, _res: Response, next: NextFunction) => {
      streamed.add(req);
      next();
    });
  }
}

/** The route of this request reads the body itself. */
export const streamsItsBody = (req: object) => streamed.has(req);
