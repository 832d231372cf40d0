/** Absolute URLs GitLab puts in its entities, built from the instance's external URL. */
export interface UrlBuilder {
  base: string;
  /** Host name of the external URL. */
  host: string;
  web(path: string): string;
  api(path: string): string;
  sshRepo(pathWithNamespace: string): string;
  /** A group's page: `<base>/groups/<full_path>` (GitLab `group_url`). */
  group(fullPath: string): string;
}

export function urlBuilder(externalUrl: string): UrlBuilder {
  const base = externalUrl.replace(/\/+$/, '');
  const host = new URL(base).hostname;
  return {
    base,
    host,
    web: (path) => `${base}/${path.replace(/^\/+/, '')}`,
    api: (path) => `${base}/api/v4/${path.replace(/^\/+/, '')}`,
    sshRepo: (pwn) => `git@${host}:${pwn}.git`,
    group: (fullPath) => `${base}/groups/${fullPath}`,
  };
}
