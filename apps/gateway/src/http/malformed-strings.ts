import { isUtf8 } from 'node:buffer';

declare global {
  interface String {
    /** ES2024 (Node 20); the repo's `lib` is ES2023. */
    isWellFormed(): boolean;
  }
}

/**
 * The checks of GitLab's `Gitlab::Middleware::HandleMalformedStrings` (lib/gitlab/middleware/handle_malformed_strings.rb):
 * no valid request carries a NUL byte or a string that is not UTF-8, so such a request is refused before any route
 * runs. In JS a decoded string cannot hold invalid UTF-8; the equivalents are a lone surrogate (`\ud800` in JSON)
 * and a percent-escape that does not decode (`%E0%A4%A`, `%C0`, `%zz`).
 */

/** A NUL character, or a lone surrogate (the decoded form of text that was not valid Unicode). */
export function isMalformedString(s: string): boolean {
  return s.includes('\0') || !s.isWellFormed();
}

/** A percent-encoded component (path, query string, urlencoded body): a bad escape, invalid UTF-8 or a NUL once decoded. */
export function isMalformedPercentEncoding(raw: string): boolean {
  if (!raw.includes('%')) return raw.includes('\0');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return true; // URIError: a bad escape or bytes that are not UTF-8
  }
  return decoded.includes('\0');
}

/**
 * Any string in a parsed params structure (keys included), at any depth. Iterative, so a body nested
 * thousands of levels deep is walked without exhausting the stack (GitLab stops at depth 2).
 */
export function hasMalformedParam(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (isMalformedString(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (typeof v === 'object' && v !== null && !Buffer.isBuffer(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (isMalformedString(k)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/**
 * The credentials of an `Authorization` header (as Node hands it over, one char per byte): Basic credentials
 * base64-decoded, any other scheme as sent. Malformed when the bytes are not UTF-8 or hold a NUL.
 */
export function hasMalformedCredentials(authorization: string | undefined): boolean {
  if (!authorization) return false;
  const basic = /^basic\s+(\S+)/i.exec(authorization);
  const bytes = basic ? Buffer.from(basic[1]!, 'base64') : Buffer.from(authorization, 'latin1');
  return !isUtf8(bytes) || bytes.includes(0);
}

/**
 * A multipart text field read as Latin-1 (one char per byte) decoded as UTF-8, or `undefined` when the bytes are
 * not UTF-8. A value holding chars above U+00FF was decoded by busboy with a charset its part declared; it is kept.
 */
export function utf8FromLatin1(s: string): string | undefined {
  if (!/[\u0080-\uffff]/.test(s)) return s; // ASCII: the same either way
  if (/[\u0100-\uffff]/.test(s)) return s;
  const bytes = Buffer.from(s, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}
