import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './actor';

/** What travels with one request through a process: its id and its caller. */
export interface RequestContext {
  requestId: string;
  actor?: Actor;
  /** What is being served (the gRPC method path, the gateway's `VERB /route`): the label of the request-cost counters. */
  operation?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** Runs fn outside any request context (timers and callbacks it creates carry none): work shared by several requests. */
export function outsideContext<T>(fn: () => T): T {
  return storage.exit(fn);
}
