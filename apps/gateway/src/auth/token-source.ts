import type { Request } from 'express';

type Params = Record<string, unknown> | undefined;

/** The token a request carries: PRIVATE-TOKEN header, Authorization: Bearer, or private_token/access_token parameter. */
export function tokenFromRequest(req: Request): string | undefined {
  const header = req.get('private-token');
  if (header) return header.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '');
  if (bearer?.[1]) return bearer[1].trim();
  for (const source of [req.query as Params, req.body as Params]) {
    for (const key of ['private_token', 'access_token']) {
      const v = source?.[key];
      if (typeof v === 'string' && v) return v;
    }
  }
  return undefined;
}

/** GitLab's `sudo_identifier`: the `sudo` param (body over query), else the `Sudo` header; undefined when absent. */
export function sudoIdentifier(req: Request): string | undefined {
  for (const source of [req.body as Params, req.query as Params]) {
    const v = source?.sudo;
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return req.get('sudo') ?? undefined;
}
