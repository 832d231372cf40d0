import type { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { isMalformedString, utf8FromLatin1 } from './malformed-strings';

/**
 * A `multipart/form-data` body read as a stream, for routes whose file may be larger than BODY_LIMIT (POST
 * /projects/:id/uploads, as GitLab's Workhorse streams it to disk): text fields are collected until the named file part
 * begins, then that part's bytes are handed over as a stream, never held whole in memory. Text fields read as Latin-1
 * and decoded as UTF-8 like `multipart-params.ts` does, so bytes that are not UTF-8 (or a NUL) make the request
 * malformed (GitLab's HandleMalformedStrings: 400 `Bad Request`).
 */

export interface StreamedFile {
  /** The file name the client gave (not sanitized: the storage does that). */
  fileName: string;
  /** The content type the part declared. */
  mimeType: string;
  stream: Readable;
}

export type MultipartFileRead =
  | { kind: 'malformed' }
  | { kind: 'done'; fields: Record<string, string>; file?: StreamedFile; discard(): void };

/** Bounds on what a body may make the parser collect before the file (fields only; the file itself is streamed). */
const LIMITS = { fieldSize: 1024 * 1024, fields: 1000, fieldNameSize: 1024, parts: 1000 };

export function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
}

/**
 * Reads `req` up to the start of the file part named `field` (or the end of the body). `discard()` stops reading the
 * body and lets the rest of it flow to nowhere, so that an answer can be sent while the client is still sending.
 */
export function readUntilFile(req: IncomingMessage, field: string): Promise<MultipartFileRead> {
  return new Promise((resolve) => {
    let bb: busboy.Busboy;
    try {
      // The file name as sent (`preservePath`): the storage sanitizes it as GitLab does (busboy would drop `..`).
      bb = busboy({ headers: req.headers, defCharset: 'latin1', defParamCharset: 'utf8', preservePath: true, limits: LIMITS });
    } catch {
      resolve({ kind: 'malformed' }); // no or a bad boundary
      return;
    }
    const fields: Record<string, string> = {};
    let settled = false;
    let malformed = false;
    const discard = () => {
      req.unpipe(bb);
      req.resume();
    };
    const finish = (result: MultipartFileRead) => {
      if (settled) return;
      settled = true;
      if (result.kind === 'malformed') discard();
      resolve(result);
    };
    bb.on('field', (name, value) => {
      // A part without a `name` (`Content-Disposition: form-data`) comes with name undefined: not a param (it crashed the process).
      if (typeof name !== 'string') return;
      const decoded = utf8FromLatin1(value);
      if (decoded === undefined || isMalformedString(decoded) || isMalformedString(name)) malformed = true;
      else if (name !== '__proto__') fields[name] = decoded;
    });
    bb.on('file', (name, stream, info) => {
      // A body cut short makes busboy fail the part's stream ("Unexpected end of form"): without a listener that error
      // would end the process. Whoever reads the handed-over stream still sees it (its own listener, or `for await`).
      stream.on('error', () => undefined);
      if (settled || name !== field) {
        stream.resume(); // another file: not ours to keep
        return;
      }
      if (malformed || isMalformedString(name) || isMalformedString(info.filename ?? '')) {
        stream.resume();
        finish({ kind: 'malformed' });
        return;
      }
      finish({ kind: 'done', fields, file: { fileName: info.filename ?? '', mimeType: info.mimeType || 'application/octet-stream', stream }, discard });
    });
    bb.on('close', () => finish(malformed ? { kind: 'malformed' } : { kind: 'done', fields, discard }));
    bb.on('error', () => finish({ kind: 'malformed' }));
    req.pipe(bb);
  });
}
