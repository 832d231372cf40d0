/**
 * A remote URL with the credentials given apart (GitLab's pull mirror `auth_user` / `auth_password`, kept in its
 * `import_data`): each one given replaces the URL's, the other is kept. A URL that does not parse is returned as it
 * is, for the outbound rules to refuse.
 */
export function withCredentials(raw: string, credentials: { user?: string; password?: string }): string {
  if (credentials.user === undefined && credentials.password === undefined) return raw;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  if (credentials.user !== undefined) url.username = encodeURIComponent(credentials.user);
  if (credentials.password !== undefined) url.password = encodeURIComponent(credentials.password);
  return url.toString();
}

/** The URL without user and password (GitLab drops a mirror's credentials when mirroring is turned off). */
export function withoutCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return raw;
  }
}
