import { Agent } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { projectsV1 } from '@glp/proto';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, ANONYMOUS, CLIENT_ADDRESS_HEADER, GIT_GRANT_ID_HEADER, DomainError, type Actor, type Logger } from '@glp/service-kit';
import type { TokenAuthenticator } from '../auth/token-authenticator';
import type { Services } from '../clients';
import { movedProjectId } from '../http/moved-project';
import type { UrlBuilder } from '../presenters/urls';
import { basicCredentials } from './basic-credentials';
import {
  abilitiesForScopes, accessDeniedText, canDownloadCode, checkCommand, checkProject, GIT_MESSAGES, type GitAbilities, type GitCommand, type GitDenial,
  type GitProjectView,
} from './git-access';
import { dotGitLocation, isRedirectableQuery, parseGitPath } from './git-paths';
import { repoAdminGitUrl, signGitGrant } from './repo-admin-git-url';

export interface GitHttpOptions {
  services: Pick<Services, 'projects' | 'repoAdmin'> & Partial<Pick<Services, 'repoAdminHttpUrl'>>;
  authenticator: Pick<TokenAuthenticator, 'authenticate'>;
  urlsFor(req: Request): UrlBuilder;
  /** repo-admin's git HTTP listener (REPO_ADMIN_HTTP_URL): the default storage's; `services.repoAdminHttpUrl` gives the others. */
  repoAdminUrl: string;
  actorSecret: string;
  logger: Logger;
}

/** Headers that never travel to repo-admin (credentials, and any grant or address a client would try to bring itself). */
const STRIPPED = ['authorization', 'cookie', 'private-token', 'job-token', ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, GIT_GRANT_ID_HEADER, CLIENT_ADDRESS_HEADER];

/** `render plain: message, status:` (Rails): text/plain in UTF-8. */
function plain(res: Response, status: number, text: string, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).type('text/plain; charset=utf-8').send(text);
}

const visibilityOf = (v: projectsV1.Visibility): GitProjectView['visibility'] => (v === 3 ? 'public' : v === 2 ? 'internal' : 'private');

function viewOf(p: projectsV1.Project): GitProjectView {
  return {
    visibility: visibilityOf(p.visibility), archived: p.archived, accessLevel: p.callerAccessLevel,
    repositoryAccessLevel: p.settings?.repositoryAccessLevel,
  };
}

/**
 * Git smart HTTP at `http_url_to_repo` (`<namespace>/<project>.git/info/refs|git-upload-pack|git-receive-pack`), outside
 * /api/v4, as GitLab's `Repositories::GitHttpController`: HEAD on info/refs is 403; a path without `.git` is redirected;
 * the caller is HTTP Basic with a personal access token as password (any username, `oauth2` included), or anonymous for
 * a clone of a project anyone may download; then GitLab's checks in GitLab's order with its plain-text answers. An
 * allowed request is proxied, streaming both ways, to repo-admin with a grant signed for that project and service.
 */
export function gitHttpRoutes(opts: GitHttpOptions): RequestHandler {
  const proxy = createProxyMiddleware<Request, Response>({
    target: opts.repoAdminUrl,
    // The repo-admin serving the project's storage (repository_storage), chosen when the request was allowed.
    router: (req) => (req as Request & { repoAdminTarget?: string }).repoAdminTarget ?? opts.repoAdminUrl,
    // One connection pool to repo-admin; bodies stream (no buffering), no time limit beyond git's own.
    agent: new Agent({ keepAlive: true, maxSockets: 256 }),
    on: {
      error: (err, req, res) => {
        opts.logger.warn({ err, path: (req as Request).path }, 'git proxy failed');
        const r = res as Response;
        if (typeof r.headersSent === 'boolean' && !r.headersSent) plain(r, 503, 'The git server, Gitaly, is not available at this time. Please contact your administrator.');
        else (res as { destroy?: () => void }).destroy?.();
      },
    },
  });

  async function findProject(fullPath: string, actor: Actor): Promise<projectsV1.Project | undefined> {
    try {
      return (await opts.services.projects.getProject({ selector: { $case: 'fullPath', value: fullPath }, withCustomAttributes: false, statistics: false }, { actor })).project;
    } catch (err) {
      // A project reached by an old path: GitLab serves it (with a "moved" notice for the pusher).
      const movedTo = movedProjectId(err);
      if (movedTo !== undefined) return findProjectById(movedTo, actor);
      if (err instanceof DomainError && err.kind === 'not_found') return undefined;
      throw err;
    }
  }

  async function findProjectById(id: number, actor: Actor): Promise<projectsV1.Project | undefined> {
    try {
      return (await opts.services.projects.getProject({ selector: { $case: 'id', value: id }, withCustomAttributes: false, statistics: false }, { actor })).project;
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') return undefined;
      throw err;
    }
  }

  async function repositoryExists(projectId: number): Promise<boolean> {
    try {
      await opts.services.repoAdmin.getRepository({ projectId }, { actor: ANONYMOUS });
      return true;
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'not_found') return false;
      throw err;
    }
  }

  const challenge = (req: Request, res: Response) =>
    plain(res, 401, accessDeniedText(opts.urlsFor(req).base), { 'WWW-Authenticate': 'Basic realm="GitLab"' });
  const deny = (res: Response, d: GitDenial) => plain(res, d.status, d.message);

  const GIT_SUFFIX = /\/(?:info\/refs|git-upload-pack|git-receive-pack)$/;
  return async (req, res, next) => {
    // Hot path: every API request passes here; one cheap test sends it on.
    if (!GIT_SUFFIX.test(req.path)) return next();
    const git = parseGitPath(req.path);
    if (!git) return next();
    const q = req.url.indexOf('?');
    const query = q < 0 ? '' : req.url.slice(q + 1);
    const isGet = req.method === 'GET' || req.method === 'HEAD';
    if (!git.dotGit) {
      // Only the info/refs handshake is routed without `.git`: a 301 to the `.git` URL, which git follows.
      if (git.action !== 'info/refs' || !isGet || !isRedirectableQuery(query)) return next();
      res.status(301).setHeader('Location', opts.urlsFor(req).web(dotGitLocation(git.projectPath, query)));
      res.type('text/html; charset=utf-8').send('');
      return;
    }
    const advertise = git.action === 'info/refs';
    if (advertise ? !isGet : req.method !== 'POST') return next();
    // `deny_head_requests`, before anything else.
    if (advertise && req.method === 'HEAD') {
      res.status(403).end();
      return;
    }
    const command = advertise ? (new URLSearchParams(query).get('service') ?? undefined) : git.action;

    // authenticate_user
    let actor: Actor = ANONYMOUS;
    let abilities: GitAbilities = { download: false, push: false };
    let project: projectsV1.Project | undefined;
    const credentials = basicCredentials(req.get('authorization'));
    if (credentials) {
      const result = credentials.password ? await opts.authenticator.authenticate(credentials.password) : undefined;
      if (!result?.ok) return challenge(req, res);
      actor = result.actor;
      abilities = abilitiesForScopes(actor.scopes);
    } else {
      // `http_download_allowed?`: a clone or fetch of a project anyone may download goes without credentials.
      project = command === 'git-upload-pack' ? await findProject(git.projectPath, ANONYMOUS) : undefined;
      if (!project || !canDownloadCode(ANONYMOUS, viewOf(project))) return challenge(req, res);
      abilities = { download: true, push: false };
    }

    // access_check (Gitlab::GitAccess#check)
    const early = checkCommand(command, abilities);
    if (early) return deny(res, early);
    const cmd = command as GitCommand;
    if (actor.kind === 'user') project = await findProject(git.projectPath, actor);
    const denied = checkProject(cmd, actor, project ? viewOf(project) : undefined);
    if (denied) {
      if (denied.status === 403 && project && !(await repositoryExists(project.id))) return deny(res, { status: 404, message: GIT_MESSAGES.noRepository });
      return deny(res, denied);
    }

    // Allowed: to repo-admin, with a grant for this project and service only.
    const url = repoAdminGitUrl(project!.id, cmd, advertise);
    const grant = signGitGrant(actor, opts.actorSecret, req.method, url);
    for (const h of STRIPPED) delete req.headers[h];
    req.headers[ACTOR_HEADER] = grant.payload;
    req.headers[ACTOR_SIGNATURE_HEADER] = grant.signature;
    req.headers[GIT_GRANT_ID_HEADER] = grant.grantId;
    // repo-admin limits concurrent git processes per client: anonymous callers are told apart by this address.
    req.headers[CLIENT_ADDRESS_HEADER] = req.ip ?? req.socket.remoteAddress ?? '';
    const requestId = res.getHeader('X-Request-Id');
    if (typeof requestId === 'string') req.headers['x-request-id'] = requestId;
    req.url = url;
    (req as Request & { repoAdminTarget?: string }).repoAdminTarget = opts.services.repoAdminHttpUrl?.(project!.repositoryStorage) ?? opts.repoAdminUrl;
    return proxy(req, res, next);
  };
}
