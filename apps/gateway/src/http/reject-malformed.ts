import type { NextFunction, Request, Response } from 'express';
import { hasMalformedCredentials, hasMalformedParam, isMalformedPercentEncoding, isMalformedString } from './malformed-strings';
import { sendText } from './respond';

/**
 * GitLab's `Gitlab::Middleware::HandleMalformedStrings`: a request with a NUL byte or text that is not UTF-8 in its
 * path, its Authorization credentials or any param (query, JSON, urlencoded, multipart; keys too, at any depth) is
 * answered 400 `text/plain` `Bad Request` before any route runs. So is a body the parsers could not decode into
 * params (a broken multipart body), as Rails' params parsing fails there too.
 */

const malformed = new WeakSet<object>();

/** For body parsers: this request's raw body was not acceptable text (checked by `rejectMalformedParams`). */
export function markMalformed(req: object): void {
  malformed.add(req);
}

export function sendMalformed(res: Response): void {
  sendText(res, 400, 'Bad Request');
}

/** First middleware of the app: the path, the query string (both still percent-encoded) and the credentials. */
export function rejectMalformedRequests(req: Request, res: Response, next: NextFunction): void {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  if (isMalformedPercentEncoding(path) || isMalformedPercentEncoding(query) || hasMalformedCredentials(req.headers.authorization)) {
    sendMalformed(res);
    return;
  }
  next();
}

interface UploadedName {
  fieldname?: unknown;
  originalname?: unknown;
}

function hasMalformedFileName(files: unknown): boolean {
  const list: unknown[] = Array.isArray(files) ? files : typeof files === 'object' && files !== null ? Object.values(files).flat() : [];
  return list.some((f) => {
    const { fieldname, originalname } = (f ?? {}) as UploadedName;
    return [fieldname, originalname].some((s) => typeof s === 'string' && isMalformedString(s));
  });
}

/** After the body parsers: the parsed body (every string and key) and the names of uploaded files. */
export function rejectMalformedParams(req: Request, res: Response, next: NextFunction): void {
  if (malformed.has(req) || hasMalformedParam(req.body) || hasMalformedFileName(req.files)) {
    sendMalformed(res);
    return;
  }
  next();
}
