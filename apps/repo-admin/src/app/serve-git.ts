import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Actor } from '@glp/service-kit';
import { BareRepository } from '../disk/bare-repository';
import { HOOK_PUSH_ENV, HOOK_SOCKET_ENV } from '../disk/git-hooks';
import { runGitService } from '../disk/git-service-process';
import {
  advertisementContentType, isProtocolV2, NO_REPOSITORY, RECEIVE_PACK_CONFIG, resultContentType, UPLOAD_PACK_CONFIG, type GitRequest,
} from '../domain/git-http-rules';
import { hashedDiskPath } from '../domain/hashed-storage';
import { serviceAnnouncement } from '../domain/pkt-line';
import type { GitHttpDeps } from './git-http-deps';

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

function plain(answer: GitAnswer, status: number, text: string): void {
  answer.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  answer.end(text);
}

/**
 * One smart HTTP request on a project's repository, the gateway having decided it is allowed: the ref advertisement
 * (`--advertise-refs`, after the `# service=` announcement unless protocol v2) or the stateless RPC with the request
 * body streamed into git and git's answer streamed out (GitLab Workhorse + Gitaly's `SmartHTTPService`). A push runs
 * receive-pack with the pre-receive/post-receive hooks, which call back with the push's session (app/receive-hooks.ts).
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
  answer.writeHead(200, {
    'Content-Type': call.advertise ? advertisementContentType(call.service) : resultContentType(call.service),
    'Cache-Control': 'no-cache',
  });
  if (call.advertise && !isProtocolV2(call.service, call.gitProtocol)) answer.write(serviceAnnouncement(call.service));
  const started = Date.now();
  try {
    const result = await runGitService(deps.git, {
      service: call.service, repoDir, advertise: call.advertise, config, env, input: call.advertise ? undefined : body, output: answer,
      timeoutMs: deps.git.timeoutMs, killOnOutputClose: !push,
    });
    const fields = { project_id: call.projectId, service: call.service, advertise: call.advertise, ms: Date.now() - started, request_id: call.requestId };
    if (result.code !== 0) deps.logger.warn({ ...fields, code: result.code, timed_out: result.timedOut, stderr: result.stderr }, 'git service failed');
    else deps.logger.debug(fields, 'git service done');
  } finally {
    if (session) deps.sessions.close(session.id);
    if (call.advertise) body?.resume();
    answer.end();
  }
}
