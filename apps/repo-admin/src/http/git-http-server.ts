import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, CLIENT_ADDRESS_HEADER, GIT_GRANT_ID_HEADER, verifyActor, type Logger } from '@glp/service-kit';
import type { GitHttpDeps } from '../app/git-http-deps';
import { gitHttpRefused } from '../app/metrics';
import { serveGit } from '../app/serve-git';
import { GIT_BUSY, GIT_BUSY_RETRY_AFTER_SECONDS, gitClientKey, GitProcessSlots, type GitHttpLimits } from '../domain/git-http-limits';
import {
  bodyEncoding, gitProtocolFrom, GRANT_MAX_AGE_SECONDS, isGrantId, parseGitRequest, signedGitMethod,
} from '../domain/git-http-rules';
import { UsedGrants } from '../domain/used-grants';
import { cappedGunzip } from './capped-gunzip';

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * HTTP adapter of git over HTTP: only requests the gateway signed (the caller as `x-glp-actor` + signature over the
 * method, URL and grant id, at most GRANT_MAX_AGE_SECONDS old, each grant once) reach a repository; anything else is
 * 404 (not an endpoint) or 401 (no valid grant). Each request runs one git process, admitted by `slots` (per client, per
 * storage: 429 / 503 with GitLab's "unable to handle this request due to load" beyond); a gzip request body is decoded on
 * the way into git, up to `maxDecompressedBytes` (413 beyond).
 */
export function gitHttpHandler(
  deps: GitHttpDeps, actorSecret: string, slots: GitProcessSlots, maxDecompressedBytes: number,
): (req: IncomingMessage, res: ServerResponse) => void {
  const used = new UsedGrants();
  return (req, res) => {
    const url = req.url ?? '';
    const method = req.method ?? 'GET';
    const route = parseGitRequest(method, url);
    if (!route) {
      req.resume();
      plain(res, 404, 'Not Found');
      return;
    }
    let actor;
    try {
      const grantId = header(req, GIT_GRANT_ID_HEADER);
      if (!isGrantId(grantId)) throw new Error('no grant id');
      actor = verifyActor(header(req, ACTOR_HEADER), header(req, ACTOR_SIGNATURE_HEADER), actorSecret, signedGitMethod(method, url, grantId), GRANT_MAX_AGE_SECONDS);
      // Taken only once verified (forged ids fill nothing); a second request with the same grant is a replay.
      if (!used.take(grantId)) throw new Error('grant already used');
    } catch {
      req.resume();
      plain(res, 401, 'Unauthorized');
      return;
    }
    const encoding = bodyEncoding(header(req, 'content-encoding'));
    if (!encoding) {
      req.resume();
      plain(res, 415, 'Unsupported Media Type');
      return;
    }
    const admission = slots.admit(gitClientKey(actor, header(req, CLIENT_ADDRESS_HEADER)));
    if (!admission.ok) {
      req.resume();
      gitHttpRefused.inc({ reason: admission.status === 429 ? 'client' : 'storage' });
      deps.logger.info({ project_id: route.projectId, service: route.service, status: admission.status, actor: actor.username || actor.kind }, 'git request refused: too many at once');
      plain(res, admission.status, GIT_BUSY, { 'Retry-After': String(GIT_BUSY_RETRY_AFTER_SECONDS) });
      return;
    }
    const body: Readable = encoding === 'gzip' ? cappedGunzip(req, maxDecompressedBytes) : req;
    serveGit(deps, { ...route, actor, gitProtocol: gitProtocolFrom(header(req, 'git-protocol')), requestId: header(req, 'x-request-id') }, body, res)
      .catch((err) => {
        deps.logger.error({ err, project_id: route.projectId, service: route.service }, 'git request failed');
        if (!res.headersSent) plain(res, 500, 'Internal Server Error');
        else res.destroy();
      })
      .finally(admission.release);
  };
}

/** Starts repo-admin's git HTTP listener (HTTP_HOST:HTTP_PORT). */
export async function startGitHttpServer(
  deps: GitHttpDeps, opts: { host: string; port: number; actorSecret: string; logger: Logger; limits: GitHttpLimits },
): Promise<{ server: Server; port: number }> {
  const slots = new GitProcessSlots(opts.limits);
  const server = createServer(gitHttpHandler(deps, opts.actorSecret, slots, opts.limits.maxDecompressedBytes));
  // A clone or a push streams for as long as git works (bounded by GIT_TIMEOUT_MS), not Node's 5-minute request limit.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : opts.port };
}
