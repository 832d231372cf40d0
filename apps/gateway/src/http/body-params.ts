import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { isMalformedPercentEncoding } from './malformed-strings';
import { multipartParams } from './multipart-params';
import { markMalformed, rejectMalformedParams } from './reject-malformed';

/**
 * The request body as params, from every encoding Grape reads (`lib/api/api.rb` via Rack): JSON,
 * `application/x-www-form-urlencoded` (qs "extended": `a[]=1`, `a[b]=c`) and `multipart/form-data`, each under
 * `limit` (BODY_LIMIT; 413 beyond). Other content types leave the body out. Last, requests whose params hold NUL
 * bytes or text that is not UTF-8 are refused (`rejectMalformedParams`).
 */
export function bodyParams(limit: string): RequestHandler[] {
  return [
    express.json({
      limit,
      type: ['application/json', 'application/*+json'],
      // Invalid UTF-8 would otherwise decode to U+FFFD and pass.
      verify: (req: IncomingMessage, _res, buf: Buffer) => {
        if (!isUtf8(buf)) markMalformed(req);
      },
    }),
    express.urlencoded({
      extended: true,
      limit,
      parameterLimit: 10000,
      // qs keeps an escape it cannot decode (`%E0%A4%A`) as literal text; Rack refuses it.
      verify: (req: IncomingMessage, _res, buf: Buffer) => {
        if (!isUtf8(buf) || isMalformedPercentEncoding(buf.toString('utf8'))) markMalformed(req);
      },
    }),
    ...multipartParams(limit),
    rejectMalformedParams,
  ];
}
