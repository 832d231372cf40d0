import type { Request, RequestHandler } from 'express';
import { urlBuilder, type UrlBuilder } from '../presenters/urls';
import { sendText } from './respond';

/**
 * The external URL of a request: EXTERNAL_URL when configured, else built from the request's scheme and Host
 * (one builder per Host seen, bounded; not one URL parse per request). `validHost` answers a request whose Host
 * cannot make a URL (empty, a space, a port beyond 65535, ...) with 400 `Bad Request`, as RFC 9112 §3.2 requires,
 * instead of failing later while presenting URLs.
 */
export function requestUrls(externalUrl?: string): { urlsFor(req: Request): UrlBuilder; validHost: RequestHandler } {
  const configured = externalUrl ? urlBuilder(externalUrl) : undefined;
  const byHost = new Map<string, UrlBuilder>();
  const urlsFor = (req: Request): UrlBuilder => {
    if (configured) return configured;
    const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    let urls = byHost.get(base);
    if (!urls) {
      urls = urlBuilder(base);
      if (byHost.size < 1000) byHost.set(base, urls);
    }
    return urls;
  };
  const validHost: RequestHandler = (req, res, next) => {
    try {
      urlsFor(req);
    } catch {
      sendText(res, 400, 'Bad Request');
      return;
    }
    next();
  };
  return { urlsFor, validHost };
}
