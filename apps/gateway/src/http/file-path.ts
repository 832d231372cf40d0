/**
 * GitLab's `Gitlab::PathTraversal.check_path_traversal!` (`lib/gitlab/path_traversal.rb`) with
 * `Gitlab::Utils.decode_path` (CGI-unescaped once; a value that still changes when unescaped again is refused), and
 * the file_path validator's refusal of absolute paths (`check_allowed_absolute_path!` with an empty allowlist).
 */

const TRAVERSAL = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/;

/** Ruby's `CGI.unescape`: `+` is a space, `%XX` a byte (decoded as UTF-8), a broken escape stays as it is. */
export function cgiUnescape(s: string): string {
  const withSpaces = s.replace(/\+/g, ' ');
  if (!withSpaces.includes('%')) return withSpaces;
  const bytes: number[] = [];
  for (let i = 0; i < withSpaces.length; i++) {
    const m = /^%[0-9a-fA-F]{2}/.exec(withSpaces.slice(i, i + 3));
    if (m) {
      bytes.push(Number.parseInt(withSpaces.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of Buffer.from(withSpaces[i]!, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A path a client gave that GitLab refuses: traversal (`..` segments, a newline), double encoding, or absolute. */
export function isUnsafeFilePath(path: string): boolean {
  const decoded = cgiUnescape(path);
  if (decoded !== cgiUnescape(decoded)) return true;
  return TRAVERSAL.test(decoded) || decoded.startsWith('/');
}
