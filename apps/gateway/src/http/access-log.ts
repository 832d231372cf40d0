import type { RequestHandler } from 'express';
import type { Level } from 'pino';
import { redactUrl, type Logger } from '@glp/service-kit';

/**
 * One concise line per API request once its response is written: method, path (credential parameters censored),
 * status, duration and request id. No headers, no bodies. Health probes (`/-/…`) are not logged. When `level` is
 * not enabled the middleware costs nothing. Give it a logger without redaction (createFixedFieldsLogger): every
 * field here is fixed, and the path is censored by redactUrl.
 */
export function accessLog(logger: Logger, level: Level): RequestHandler {
  if (!logger.isLevelEnabled(level)) return (_req, _res, next) => next();
  const write = logger[level].bind(logger);
  return (req, res, next) => {
    if (req.url.startsWith('/-/')) return next();
    const started = performance.now();
    res.once('finish', () => {
      write({
        method: req.method,
        path: redactUrl(req.originalUrl),
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        request_id: res.getHeader('X-Request-Id'),
      }, 'request');
    });
    next();
  };
}
