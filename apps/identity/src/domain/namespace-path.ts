/**
 * GitLab's rules for a namespace path (a username is its personal namespace path):
 * Gitlab::PathRegex.namespace_format_regex plus the reserved top-level words.
 */
const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]{0,253}[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;

export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Top-level routes a namespace may not take (a subset of Gitlab::PathRegex::TOP_LEVEL_ROUTES). */
const RESERVED_TOP_LEVEL = new Set([
  '-', '.well-known', '404.html', '422.html', '500.html', '502.html', '503.html', 'admin', 'api', 'apple-touch-icon.png',
  'assets', 'dashboard', 'explore', 'favicon.ico', 'favicon.png', 'files', 'groups', 'health_check', 'help', 'import',
  'jwt', 'login', 'oauth', 'profile', 'projects', 'public', 'robots.txt', 's', 'search', 'sitemap', 'sitemap.xml',
  'sitemap.xml.gz', 'slash-command-logo.png', 'snippets', 'unsubscribes', 'uploads', 'users', 'v2',
]);

/** Error messages for a namespace path, empty when it is valid. */
export function namespacePathErrors(path: string, topLevel = true): string[] {
  const errors: string[] = [];
  if (path.length === 0) return ["can't be blank"];
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (!NAMESPACE_FORMAT.test(path) || /\.(git|atom)$/i.test(path)) errors.push(NAMESPACE_FORMAT_MESSAGE);
  if (topLevel && RESERVED_TOP_LEVEL.has(path.toLowerCase())) errors.push(`${path} is a reserved name`);
  return errors;
}
