import { Param } from './param-dsl';
import { INVALID, type Coerced } from './param-coercion';

/**
 * A file part of a multipart body, as a param (`multipart-params.ts` puts one in the params under its field name): Grape
 * sees uploaded files among the params (`Rack::Multipart::UploadedFile`), so a text value where a file is declared is
 * "<name> is invalid", and a file where text is declared too. The bytes stay off the param walkers (not enumerable).
 */
export class UploadedFile {
  declare readonly buffer: Buffer;
  constructor(
    readonly fieldName: string,
    /** The file name the client gave. */
    readonly originalName: string,
    /** The content type the part declared. */
    readonly mimeType: string,
    readonly size: number,
    buffer: Buffer,
  ) {
    Object.defineProperty(this, 'buffer', { value: buffer, enumerable: false });
  }
}

/**
 * GitLab's `optional :avatar, type: ::API::Validations::Types::WorkhorseFile`, plus the empty string (`avatar=`) its
 * update service takes as "remove the avatar": a file, `''` (and null), else "<name> is invalid". Declared with the
 * kind `string` for whatever reads route tables (the route fuzzer sends text: only `''` passes).
 */
export function fileOrEmptyParam(): Param<UploadedFile | ''> {
  const coerce = (v: unknown): Coerced<UploadedFile | ''> => {
    if (v === null || v === undefined) return null;
    if (v instanceof UploadedFile) return v;
    return v === '' ? '' : INVALID;
  };
  return new Param<UploadedFile | ''>({ kind: 'string', coerce, required: false, hasDefault: false, notBlank: false });
}
