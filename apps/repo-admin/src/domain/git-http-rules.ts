/**
 * repo-admin's git smart HTTP endpoint, as the gateway calls it after deciding who may do what:
 *
 *   GET  /projects/<id>.git/info/refs?service=git-upload-pack|git-receive-pack   (ref advertisement)
 *   POST /projects/<id>.git/git-upload-pack | git-receive-pack                    (stateless RPC)
 *
 * Each request carries the caller as `x-glp-actor` + `x-glp-actor-sig` (libs/service-kit `signActor`) signed for
 * `signedGitMethod(method, url, grantId)` with a fresh grant id in `x-glp-grant-id`: the HMAC covers the project and the
 * git service, so a grant for one project's clone cannot be replayed as a push or against another project; it expires
 * after `GRANT_MAX_AGE_SECONDS`, and is taken once (UsedGrants), so a captured grant replayed within its minute (a push
 * with another pack) is refused too.
 */

export const GIT_SERVICES = ['git-upload-pack', 'git-receive-pack'] as const;
export type GitService = (typeof GIT_SERVICES)[number];

export const isGitService = (s: unknown): s is GitService => typeof s === 'string' && (GIT_SERVICES as readonly string[]).includes(s);

/** How long a signed git grant is accepted after the gateway issued it (the request's start, not its duration). */
export const GRANT_MAX_AGE_SECONDS = 60;

/** What the actor signature covers: the HTTP method, the request URL (path and query) on repo-admin, and the grant's id. */
export const signedGitMethod = (method: string, url: string, grantId: string) => `git-http ${method.toUpperCase()} ${url} ${grantId}`;

/** A grant id as the gateway makes them (a UUID; anything short and plain is accepted, nothing else). */
export const isGrantId = (id: unknown): id is string => typeof id === 'string' && /^[A-Za-z0-9-]{8,64}$/.test(id);


/** The URL the gateway calls for a project's git request. */
export function gitRequestUrl(projectId: number, service: GitService, advertise: boolean): string {
  return advertise ? `/projects/${projectId}.git/info/refs?service=${service}` : `/projects/${projectId}.git/${service}`;
}

export interface GitRequest {
  projectId: number;
  service: GitService;
  /** GET info/refs (the ref advertisement) rather than the POST of the stateless RPC. */
  advertise: boolean;
}

const ROUTE = /^\/projects\/([1-9][0-9]{0,15})\.git\/(info\/refs\?service=(git-upload-pack|git-receive-pack)|(git-upload-pack|git-receive-pack))$/;

/** A request on the endpoint, exactly as `gitRequestUrl` writes it (anything else: undefined → 404). */
export function parseGitRequest(method: string, url: string): GitRequest | undefined {
  const m = ROUTE.exec(url);
  if (!m) return undefined;
  const projectId = Number(m[1]);
  if (!Number.isSafeInteger(projectId)) return undefined;
  if (m[3]) return method === 'GET' ? { projectId, service: m[3] as GitService, advertise: true } : undefined;
  return method === 'POST' ? { projectId, service: m[4] as GitService, advertise: false } : undefined;
}

/** Content types of smart HTTP (`http-backend.c`, GitLab Workhorse). */
export const advertisementContentType = (s: GitService) => `application/x-${s}-advertisement`;
export const resultContentType = (s: GitService) => `application/x-${s}-result`;

/**
 * The `Git-Protocol` request header as git expects it in GIT_PROTOCOL (`version=2`, colon-separated key[=value]
 * pairs); anything else is dropped rather than passed to git.
 */
export function gitProtocolFrom(header: string | undefined): string | undefined {
  if (!header || header.length > 256) return undefined;
  return /^[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?(:[A-Za-z0-9._-]+(=[A-Za-z0-9._-]*)?)*$/.test(header) ? header : undefined;
}

/**
 * Whether the advertisement is protocol v2, which has no `# service=` announcement (`http-backend.c`: only when
 * `determine_protocol_version_server()` is not v2). receive-pack has no v2: it answers v0 whatever the client asks.
 */
export function isProtocolV2(service: GitService, gitProtocol: string | undefined): boolean {
  return service === 'git-upload-pack' && !!gitProtocol && gitProtocol.split(':').includes('version=2');
}

/** Request body encodings git clients send (`Content-Encoding: gzip` for large upload-pack requests). */
export function bodyEncoding(header: string | undefined): 'identity' | 'gzip' | undefined {
  const v = (header ?? '').trim().toLowerCase();
  if (v === '' || v === 'identity') return 'identity';
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  return undefined;
}

/** GitLab's `check_repository_existence!` (`lib/gitlab/git_access.rb`, ERROR_MESSAGES[:no_repo]). */
export const NO_REPOSITORY = 'A repository for this project does not exist yet.';

/**
 * git config for the services, as Gitaly runs them: upload-pack serves partial clones and any reachable object;
 * receive-pack checks objects and accepts push options (`git push -o`), which reach the hooks.
 */
export const UPLOAD_PACK_CONFIG = ['uploadpack.allowFilter=true', 'uploadpack.allowAnySHA1InWant=true'];
export const RECEIVE_PACK_CONFIG = ['receive.fsckObjects=true', 'receive.advertisePushOptions=true'];
