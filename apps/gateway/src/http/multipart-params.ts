import type { Writable } from 'node:stream';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { utf8FromLatin1 } from './malformed-strings';
import { markMalformed, sendMalformed } from './reject-malformed';
import { UploadedFile } from './file-param';
import { streamsItsBody } from './streamed-body';

/**
 * `multipart/form-data` params, as Rack parses them for Grape: text fields become params with the same bracket
 * syntax as urlencoded bodies (`topics[]=a`, `a[b]=c`); files stay on the request (`req.files`, in memory) for
 * upload routes. The body is first read whole by body-parser under BODY_LIMIT (413 beyond, like JSON bodies), then
 * multer parses that buffer. A body multer cannot parse is answered 400 `Bad Request` (text/plain), as GitLab's
 * HandleMalformedStrings does when Rack's multipart parser fails.
 *
 * Field values are read as Latin-1 (one char per byte) and decoded as UTF-8 here, so that bytes which are not UTF-8
 * are refused like GitLab refuses them instead of becoming U+FFFD.
 */

type MulterOptions = multer.Options & {
  defCharset?: string;
  streamHandler?: (req: Request, busboy: Writable) => void;
};

const rawBodies = new WeakMap<object, Buffer>();

const options: MulterOptions = {
  storage: multer.memoryStorage(),
  defCharset: 'latin1',
  defParamCharset: 'utf8',
  // The whole body is already within BODY_LIMIT; these bound what a body of that size can make multer build.
  limits: { fieldSize: Infinity, fileSize: Infinity, fieldNameSize: 1024, fieldNestingDepth: 32, fieldArrayIndexLimit: 10000, parts: 10000 },
  streamHandler: (req, busboy) => busboy.end(rawBodies.get(req)),
};
const parseFields = multer(options as multer.Options).any();

/** Decodes every text field in place; false when one is not UTF-8. */
function decodeFields(body: unknown): boolean {
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    // Own keys, not `map`: `a[98]` makes a sparse array, whose holes `map` keeps (a hole as an entry crashed the process).
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (typeof value === 'string') {
        const decoded = utf8FromLatin1(value);
        if (decoded === undefined) return false;
        record[key] = decoded;
      } else stack.push(value);
    }
  }
  return true;
}

/**
 * Each uploaded file becomes the param of its field name (an `UploadedFile`; a text field of the same name wins), as
 * Grape sees Rack's uploaded files among the params. Field names with brackets are left out.
 */
function addFileParams(req: Request): void {
  const files = Array.isArray(req.files) ? (req.files as Express.Multer.File[]) : [];
  if (files.length === 0) return;
  if (typeof req.body !== 'object' || req.body === null) req.body = {};
  const body = req.body as Record<string, unknown>;
  for (const f of files) {
    if (/[[\]]/.test(f.fieldname) || f.fieldname === '__proto__' || Object.hasOwn(body, f.fieldname)) continue;
    body[f.fieldname] = new UploadedFile(f.fieldname, f.originalname, f.mimetype, f.size, f.buffer);
  }
}

function parseMultipart(req: Request, res: Response, next: NextFunction): void {
  if (!Buffer.isBuffer(req.body)) {
    next();
    return;
  }
  rawBodies.set(req, req.body);
  parseFields(req, res, (err?: unknown) => {
    rawBodies.delete(req);
    if (err) {
      sendMalformed(res);
      return;
    }
    if (!decodeFields(req.body)) markMalformed(req);
    else addFileParams(req);
    next();
  });
}

export function multipartParams(bodyLimit: string): RequestHandler[] {
  // A route that streams its own body (`streamsBody`, e.g. an upload beyond BODY_LIMIT) reads it itself.
  return [express.raw({ type: (req) => !streamsItsBody(req) && /^multipart\//i.test(req.headers['content-type'] ?? ''), limit: bodyLimit }), parseMultipart];
}
