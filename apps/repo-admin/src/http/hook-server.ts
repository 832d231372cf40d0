import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { rm } from 'node:fs/promises';
import type { GitHttpDeps } from '../app/git-http-deps';
import { postReceive, preReceive, type HookAnswer, type HookCall } from '../app/receive-hooks';
import { PUSH_ID_HEADER } from '../disk/git-hooks';

/** Bound on a hook's call (git's ref updates: ~100 bytes per ref). */
const MAX_HOOK_BODY = 16 * 1024 * 1024;

function answer(res: ServerResponse, status: number, body: HookAnswer | { error: string }): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) });
  res.end(json);
}

async function readCall(req: IncomingMessage): Promise<HookCall | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_HOOK_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<HookCall>;
    if (typeof parsed.changes !== 'string') return undefined;
    const pushOptions = Array.isArray(parsed.pushOptions) ? parsed.pushOptions.filter((o): o is string => typeof o === 'string') : [];
    const quarantine: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed.quarantine ?? {})) if (typeof v === 'string') quarantine[k] = v;
    return { changes: parsed.changes, pushOptions, quarantine };
  } catch {
    return undefined;
  }
}

/**
 * The internal API receive-pack's hooks call (GitLab's `/internal/allowed` and `/internal/post_receive`), on a Unix socket
 * in a private directory: `POST /hooks/pre-receive` and `/hooks/post-receive` with the push's session id. A call for no
 * running push is refused (403), so a hook cannot act for a push that did not come through the gateway.
 */
export async function startHookServer(deps: GitHttpDeps, socketPath: string): Promise<Server> {
  const server = createServer((req, res) => {
    const hook = req.method === 'POST' ? /^\/hooks\/(pre-receive|post-receive)$/.exec(req.url ?? '')?.[1] : undefined;
    if (!hook) {
      req.resume();
      answer(res, 404, { error: 'not found' });
      return;
    }
    const pushId = req.headers[PUSH_ID_HEADER];
    const session = deps.sessions.get(typeof pushId === 'string' ? pushId : undefined);
    if (!session) {
      req.resume();
      answer(res, 403, { error: 'no such push' });
      return;
    }
    void (async () => {
      const call = await readCall(req);
      if (!call) return answer(res, 400, { error: 'bad hook call' });
      const result = hook === 'pre-receive' ? await preReceive(deps, session, call) : await postReceive(deps, session, call);
      answer(res, 200, result);
    })().catch((err) => {
      deps.logger.error({ err, hook, project_id: session.projectId }, 'receive hook failed');
      if (!res.headersSent) answer(res, 500, { error: 'hook failed' });
    });
  });
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
