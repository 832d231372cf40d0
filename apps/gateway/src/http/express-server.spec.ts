import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import express from 'express';
import { createExpressServer } from './express-server';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('createExpressServer', () => {
  const app = express();
  app.use(express.json());
  app.post('/echo/:name', (req, res) => {
    // Express's request and response API, on objects Node constructed.
    res.status(201).set('X-Name', req.params.name ?? '').json({ body: req.body as unknown, q: req.query['q'], host: req.hostname, proto: req.protocol });
  });
  const server = createExpressServer(app, { keepAliveTimeout: 1000 });
  const born: Array<[object, object]> = [];
  // Runs before Express's handler (the server's first 'request' listener): the prototypes Node gave the objects.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    born.push([Object.getPrototypeOf(req) as object, Object.getPrototypeOf(res) as object]);
  });
  let url = '';
  beforeAll(async () => {
    url = await listen(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("constructs requests and responses with Express's prototypes, so Express's per-request prototype swap is a no-op", async () => {
    born.length = 0;
    await fetch(`${url}/echo/a`, { method: 'POST' });
    expect(born).toHaveLength(1);
    expect(born[0]?.[0]).toBe(app.request);
    expect(born[0]?.[1]).toBe(app.response);
  });

  it('serves the app unchanged: params, query, JSON body, status, headers and keep-alive', async () => {
    const res = await fetch(`${url}/echo/x%20y?q=1`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-name')).toBe('x y');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ body: { a: [1, 2] }, q: '1', host: '127.0.0.1', proto: 'http' });
    expect(server.keepAliveTimeout).toBe(1000);
  });
});
