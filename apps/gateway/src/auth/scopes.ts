/**
 * Which token scopes allow a route (Gitlab::Auth): `api` allows everything,
 * `read_api` only reads, and routes may add their own (e.g. `read_user` on /user).
 */
export function allowedScopes(method: string, extra: readonly string[] = []): string[] {
  const read = method === 'GET' || method === 'HEAD';
  return read ? ['api', 'read_api', ...extra] : ['api', ...extra];
}

export function hasScope(tokenScopes: readonly string[], allowed: readonly string[]): boolean {
  return tokenScopes.some((s) => allowed.includes(s));
}
