import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Actor } from '@glp/service-kit';
import { BareRepository } from '../disk/bare-repository';
import { HOOK_PUSH_ENV, HOOK_SOCKET_ENV } from '../disk/git-hooks';
import { runGitService } from '../disk/git-service-process';
import {
  advertisementContentType, isProtocolV2, NO_REPOSITORY, RECEIVE_PACK_CONFIG, resultContentType, UPLOAD_PACK_CONFIG, type GitRequest,
} from '../domain/git-http-rules';
import { BodyTooLargeError, GIT_BODY_TOO_LARGE } from '../domain/git-http-limits';
import { hashedDiskPath } from '../domain/hashed-storage';
import { serviceAnnouncement } from '../domain/pkt-line';
import type { GitHttpDeps } from './git-http-deps';
import { gitHttpRefused } from './metrics';

/** Where the answer goes: an HTTP response (status and headers first, then the streamed body). */
export interface GitAnswer extends Writable {
  writeHead(status: number, headers: Record<string, string>): unknown;
}

export interface GitCall extends GitRequest {
  /** The caller the gateway signed (the pusher of a receive-pack). */
  actor: Actor;
  /** GIT_PROTOCOL (from the Git-Protocol header, sanitized). */
  gitProtocol?: string;
  requestId?: string;
}

function plain(answer: GitAnswer, status: number, text: string, headers: Record<string, string> = {}): void {
  answer.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  answer.end(text);
}

/**
 * One smart HTTP request on a project's repository, the gateway having decided it is allowed: the ref advertisement
 * (`--advertise-refs`, after the `# service=` announcement unless protocol v2) or the stateless RPC with the request
 * body streamed into git and git's answer streamed out (GitLab Workhorse + Gitaly's `SmartHTTPService`). A push runs
 * receive-pack with the pre-receive/post-receive hooks, which call back with the push's session (app/receive-hooks.ts).
 * The RPC's 200 is sent with git's first bytes (git reads its whole request first), so a body that fails with
 * BodyTooLargeError (a gzip bomb) is still answered 413; git, its request cut short, stops.
 */
export async function serveGit(deps: GitHttpDeps, call: GitCall, body: Readable | undefined, answer: GitAnswer): Promise<void> {
  const repoDir = path.join(deps.storageRoot, hashedDiskPath(call.projectId));
  if (!(await new BareRepository(deps.git, repoDir).existsWithin(deps.repositoryWaitMs ?? 0))) {
    body?.resume();
    plain(answer, 404, NO_REPOSITORY);
    return;
  }
  const push = call.service === 'git-receive-pack' && !call.advertise;
  const session = push ? deps.sessions.open({ projectId: call.projectId, actor: call.actor, service: call.service, repoDir }) : undefined;
  const env: Record<string, string> = {};
  if (call.gitProtocol) env.GIT_PROTOCOL = call.gitProtocol;
  if (session) {
    env[HOOK_SOCKET_ENV] = deps.hooks.socketPath;
    env[HOOK_PUSH_ENV] = session.id;
  }
  const config = call.service === 'git-upload-pack' ? UPLOAD_PACK_CONFIG : [...RECEIVE_PACK_CONFIG, `core.hooksPath=${deps.hooks.dir}`];
  let answering = false;
  const answer200 = () => {
    if (answering) return;
    answering = true;
    answer.writeHead(200, {
      'Content-Type': call.advertise ? advertisementContentType(call.service) : resultContentType(call.service),
      'Cache-Control': 'no-cache',
    });
    if (call.advertise && !isProtocolV2(call.service, call.gitProtocol)) answer.write(serviceAnnouncement(call.service));
  };
  if (call.advertise) answer200();
  let bodyError: unknown;
  body?.once('error', (err) => {
    bodyError = err;
  });
  const started = Date.now();
  try {
    const result = await runGitService(deps.git, {
      service: call.service, repoDir, advertise: call.advertise, config, env, input: call.advertise ? undefined : body, output: answer,
      timeoutMs: deps.git.timeoutMs, killOnOutputClose: !push, onFirstOutput: answer200,
    });
    const fields = { project_id: call.projectId, service: call.service, advertise: call.advertise, ms: Date.now() - started, request_id: call.requestId };
    if (bodyError instanceof BodyTooLargeError) {
      gitHttpRefused.inc({ reason: 'body_too_large' });
      deps.logger.warn({ ...fields, err: bodyError }, 'git request body too large');
    } else if (result.code !== 0) deps.logger.warn({ ...fields, code: result.code, timed_out: result.timedOut, stderr: result.stderr }, 'git service failed');
    else deps.logger.debug(fields, 'git service done');
  } finally {
    if (session) deps.sessions.close(session.id);
    if (call.advertise) body?.resume();
    if (!answering && bodyError instanceof BodyTooLargeError) {
      // Nothing of git's answer went out yet: Workhorse's 413.
      plain(answer, 413, GIT_BODY_TOO_LARGE);
    } else {
      answer200();
      answer.end();
    }
  }
}

