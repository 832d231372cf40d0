import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The gateway's HTTP server for an Express app, with requests and responses born with Express's prototypes.
 *
 * Express's `app.handle` gives every request and response its own API by `Object.setPrototypeOf(req, app.request)`
 * (and `res`, `app.response`). Changing the prototype of a live object makes V8 drop the optimized code and inline
 * caches that Node's http internals keep for those objects, on every request: a bare `http` server doing only that
 * fell from 11.0k to 4.9k req/s, and a one-route Express 5 app served 3.6–4.5k req/s against 10.5k with this
 * server, at 32 connections on the same machine (bench/README.md, "Express's prototype swap").
 *
 * Here Node constructs them with constructors whose prototypes *are* `app.request` / `app.response`, so Express's
 * `setPrototypeOf` finds the prototype already in place, which is a no-op. Everything else is Node's own
 * constructors: the same objects, state and behaviour.
 */
export function createExpressServer(app: Express, options: ServerOptions): Server {
  // Node's constructors are plain functions (not classes), so they initialize an object created here.
  const initRequest = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, opts?: unknown) => void;
  function ExpressRequest(this: IncomingMessage, socket: Socket): void {
    initRequest.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: ServerResponse, req: IncomingMessage, opts?: unknown): void {
    initResponse.call(this, req, opts);
  }
  ExpressResponse.prototype = app.response;
  return createServer(
    {
      ...options,
      IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
      ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}
