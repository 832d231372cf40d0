import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';

/**
 * Serves the files under `root` over HTTP on 127.0.0.1 (404 for anything else, nothing outside `root`): a bare
 * repository after `git update-server-info` is then reachable with git's dumb HTTP protocol (imports, mirrors).
 * `redirect` may answer a request (its path and query) with a `302 Location` instead, as a hostile server would.
 */
export async function serveDirectory(root: string, redirect?: (pathAndQuery: string) => string | undefined): Promise<{ port: number; close(): void }> {
  const server = createServer((req, res) => {
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
