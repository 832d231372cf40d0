import type { Request } from 'express';

/** The token a request carries: PRIVATE-TOKEN header, private_token/access_token parameter, or Authorization: Bearer. */
export function tokenFromRequest(req: Request): string | undefined {
  const header = req.get('private-token');
  if (header) return header.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '');
  if (bearer?.[1]) return bearer[1].trim();
  for (const source of [req.query as Record<string, unknown>, (req.body ?? {}) as Record<string, unknown>]) {
    for (const key of ['private_token', 'access_token']) {
      const v = source?.[key];
      if (typeof v === 'string' && v) return v;
    }
  }
  return undefined;
}
