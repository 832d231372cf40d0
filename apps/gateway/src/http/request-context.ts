import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ANONYMOUS, runWithContext } from '@glp/service-kit';

const VALID_ID = /^[\w.:/=+-]{1,128}$/;

/** X-Request-Id: the caller's when it is sane, else a new one; echoed back and carried in logs and gRPC metadata. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const requestId = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  (req as Request & { id?: string }).id = requestId;
  runWithContext({ requestId, actor: ANONYMOUS }, () => next());
}

/** Headers GitLab's API sends on every response. */
export function apiHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'max-age=0, private, must-revalidate');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'SAMEORIGIN');
  res.setHeader('Vary', 'Origin');
  next();
}
