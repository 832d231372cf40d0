import { IMPORT_SCHEMES, portOf, resolveAll, splitCredentials, vetUrl, type Resolver, type UrlRules } from '@glp/url-guard';
import { runGit, type GitOptions } from './git';

export type RemoteRules = Pick<UrlRules, 'allowLocalNetwork' | 'allowlist'>;

/** A remote git URL ready for git: vetted (outbound URL rules), DNS pinned, credentials out of argv. */
export interface PreparedRemote {
  /** The URL without credentials. */
  url: string;
  /** `-c` options: the pinned address (`http.curloptResolve`) and the Authorization header, passed through the
   * environment (GIT_CONFIG_COUNT/KEY/VALUE), never on the command line. */
  env: Record<string, string>;
}

export type Prepared = { ok: true; remote: PreparedRemote } | { ok: false; reason: string };

/**
 * Vets a remote URL with GitLab's outbound URL rules (schemes http, https, git; no loopback/private target unless
 * allowed) and prepares it for git: the host's address is pinned for http(s) so a second DNS answer cannot redirect the
 * fetch (DNS rebinding), and user/password become a Basic Authorization header in git's environment.
 */
export async function prepareRemote(raw: string, rules: RemoteRules, resolve: Resolver = resolveAll): Promise<Prepared> {
  const vetted = await vetUrl(raw, { schemes: IMPORT_SCHEMES, ...rules }, resolve);
  if (!vetted.ok) return vetted;
  const { url, username, password } = splitCredentials(raw);
  const config: [string, string][] = [];
  if (vetted.url.protocol === 'http:' || vetted.url.protocol === 'https:') {
    const host = vetted.url.hostname.replace(/^\[|\]$/g, '');
    if (host !== vetted.address) config.push(['http.curloptResolve', `${host}:${portOf(vetted.url)}:${vetted.address}`]);
    if (username || password) {
      config.push(['http.extraHeader', `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`]);
    }
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return { ok: true, remote: { url, env } };
}

/** `git ls-remote --heads`: does the remote answer as a git repository? */
export async function remoteAnswers(gitBin: string, remote: PreparedRemote, opts: Pick<GitOptions, 'timeoutMs'>): Promise<boolean> {
  try {
    await runGit(gitBin, ['ls-remote', '--heads', '--', remote.url], { timeoutMs: opts.timeoutMs, env: remote.env, maxOutputBytes: 64 * 1024 * 1024 });
    return true;
  } catch {
    return false;
  }
}
