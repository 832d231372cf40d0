import { isIP } from 'node:net';
import { IMPORT_SCHEMES, portOf, resolveAll, splitCredentials, vetUrl, type Resolver, type UrlRules } from '@glp/url-guard';
import { runGit, type GitOptions } from './git';

export type RemoteRules = Pick<UrlRules, 'allowLocalNetwork' | 'allowlist'>;

/** A remote git URL ready for git: vetted (outbound URL rules), DNS pinned, credentials out of argv. */
export interface PreparedRemote {
  /** The URL without credentials (for git://, with the vetted address as its host). */
  url: string;
  /** `-c` options (no redirects, the URL's transport only, the pinned address, the Authorization header), passed through
   * the environment (GIT_CONFIG_COUNT/KEY/VALUE), never on the command line. */
  env: Record<string, string>;
}

export type Prepared = { ok: true; remote: PreparedRemote } | { ok: false; reason: string };

/**
 * Vets a remote URL with GitLab's outbound URL rules (schemes http, https, git; no loopback/private target unless
 * allowed) and prepares it so that git reaches only what was vetted:
 * - git follows no redirect (nor an http-alternates file, which git treats as one): each hop would name a host nobody
 *   checked, so a redirecting remote fails as an unreachable one, as Gitaly's remote fetches do;
 * - git connects to the address the guard checked: http(s) through `http.curloptResolve` (Host, SNI and certificate stay
 *   the URL's); git:// has no such override, so git is handed the vetted address itself (the daemon then sees the
 *   address, not the name, as its virtual host);
 * - only the URL's own transport is allowed (`protocol.allow`);
 * - user/password become a Basic Authorization header in git's environment, never argv.
 */
export async function prepareRemote(raw: string, rules: RemoteRules, resolve: Resolver = resolveAll): Promise<Prepared> {
  const vetted = await vetUrl(raw, { schemes: IMPORT_SCHEMES, ...rules }, resolve);
  if (!vetted.ok) return vetted;
  const { url: bare, username, password } = splitCredentials(raw);
  const target = new URL(bare);
  const scheme = target.protocol.replace(/:$/, '');
  const pinned = isIP(vetted.address) === 6 ? `[${vetted.address}]` : vetted.address;
  const config: [string, string][] = [
    ['http.followRedirects', 'false'],
    ['protocol.allow', 'never'],
    [`protocol.${scheme}.allow`, 'always'],
  ];
  if (scheme === 'git') {
    target.hostname = pinned;
  } else {
    if (target.hostname.replace(/^\[|\]$/g, '') !== vetted.address) config.push(['http.curloptResolve', `${target.hostname}:${portOf(target)}:${pinned}`]);
    if (username || password) {
      config.push(['http.extraHeader', `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`]);
    }
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return { ok: true, remote: { url: target.toString(), env } };
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
