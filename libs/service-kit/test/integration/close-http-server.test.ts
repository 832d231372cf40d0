import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from '../../src/shutdown';

/**
 * closeHttpServer under keep-alive load: clients that keep sending on their pooled connections while the server shuts
 * down get answers (each one saying `Connection: close` once the shutdown began) or, for a new connection, a refusal;
 * never a connection reset under a request they had already sent on a reused connection.
 */
describe('closeHttpServer', () => {
  let server: Server;
  afterEach(() => server?.closeAllConnections());

  it('answers each request sent on a kept-alive connection during the shutdown (Connection: close) or refuses a new connection; never resets one', async () => {
    server = createServer((_req, res) => setTimeout(() => res.end('ok'), 2));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let closing = false;
    const results = { before: 0, afterWithClose: 0, afterKeptAlive: 0, refused: 0, otherErrors: [] as string[] };

    /** One request; resolves whether the server refused the connection. */
    const once = () =>
      new Promise<boolean>((resolve) => {
        const sentWhileClosing = closing;
        const req = request({ host: '127.0.0.1', port, agent, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            if (!sentWhileClosing) results.before++;
            else if (res.headers.connection === 'close') results.afterWithClose++;
            else results.afterKeptAlive++;
            resolve(false);
          });
        });
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code === 'ECONNREFUSED') results.refused++;
          else results.otherErrors.push(`${err.code ?? ''} ${err.message}`);
          resolve(err.code === 'ECONNREFUSED');
        });
        req.end();
      });
    const loop = async () => {
      // Until the server refuses this client a new connection (it is closed), or 3 s.
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && !(await once()));
    };
    const loops = Array.from({ length: 8 }, loop);
    await new Promise((r) => setTimeout(r, 300));
    closing = true;
    const closed = closeHttpServer(server, 2000);
    await Promise.all(loops);
    await closed;
    agent.destroy();

    // No reset: each request was answered (after the shutdown began, with Connection: close) or, on a new connection,
    // refused.
    expect(results.otherErrors).toEqual([]);
    expect(results.before).toBeGreaterThan(50);
    expect(results.afterKeptAlive).toBe(0);
    expect(results.refused).toBeGreaterThan(0);
  });
});
