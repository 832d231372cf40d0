import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

/**
 * Serves the files under `root` over HTTP on 127.0.0.1 (404 for anything else, nothing outside `root`): a bare
 * repository after `git update-server-info` is then reachable with git's dumb HTTP protocol (imports, mirrors).
 * `redirect` may answer a request (its path and query) with a `302 Location` instead, as a hostile server would.
 * `basicAuth` makes every request without those credentials a 401 asking for them (a private upstream).
 */
export async function serveDirectory(
  root: string, redirect?: (pathAndQuery: string) => string | undefined, opts: { basicAuth?: { user: string; password: string } } = {},
): Promise<{ port: number; close(): void }> {
  const wanted = opts.basicAuth && `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if (wanted && req.headers.authorization !== wanted) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="upstream"' }).end();
      return;
    }
    const location = redirect?.(req.url ?? '/');
    if (location) {
      res.writeHead(302, { Location: location }).end();
      return;
    }
    const file = path.join(root, decodeURIComponent((req.url ?? '/').split('?')[0]!));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, close: () => server.close() };
}
