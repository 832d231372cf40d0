import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { ACTOR_HEADER, ACTOR_SIGNATURE_HEADER, GIT_GRANT_ID_HEADER, signActor, type Actor } from '@glp/service-kit';
import { signedGitMethod } from '../../src/domain/git-http-rules';

/** A git grant as the gateway makes it: signed for the method, the URL and a fresh grant id (each grant serves once). */
export function signedGitHeaders(secret: string, method: string, url: string, as: Actor): Record<string, string> {
  const grantId = randomUUID();
  const { payload, signature } = signActor(as, secret, signedGitMethod(method, url, grantId));
  return { [ACTOR_HEADER]: payload, [ACTOR_SIGNATURE_HEADER]: signature, [GIT_GRANT_ID_HEADER]: grantId };
}

/**
 * The gateway's part in front of a repo-admin git HTTP listener: every request is granted as `as` and passed on to the
 * port `target()` names at that moment (a test may restart the listener on another port).
 */
export async function startGrantingProxy(secret: string, as: Actor, target: () => number): Promise<{ url: string; close(): void }> {
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, ...signedGitHeaders(secret, req.method!, req.url!, as) };
    const up = http.request({ host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`, close: () => proxy.close() };
}
