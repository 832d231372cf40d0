import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import type { identityV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import type { Services } from '../clients';
import type { UrlBuilder } from '../presenters/urls';
import type { InferParams, ParamFields, ParamSchema } from './params';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: `public` anonymous allowed (a bad token is still a 401),
 * `user` a valid token, `admin` an administrator's token.
 */
export type RouteAccess = 'public' | 'user' | 'admin';

export interface RouteContext<P> {
  req: Request;
  res: Response;
  actor: Actor;
  /** The signed-in user, when there is one. */
  user?: identityV1.User;
  /** The id of the personal access token the request came with (`/personal_access_tokens/self`). */
  tokenId?: number;
  params: P;
  urls: UrlBuilder;
  services: Services;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A streamed body instead of JSON (a snapshot): sent with `status` and `headers` by `http/send-stream.ts`. */
  stream?: Readable;
}

/** A REST route as data: method, path, who may call it, its parameters, and the handler. */
export interface RouteDef<F extends ParamFields = ParamFields> {
  method: HttpMethod;
  /** Express path under /api/v4, e.g. `/projects/:id`. */
  path: string;
  access: RouteAccess;
  /** Token scopes besides api/read_api that allow the route (e.g. read_user). */
  scopes?: readonly string[];
  params: ParamSchema<F>;
  /** The handler reads a multipart body itself, as a stream (`http/streamed-body.ts`): files beyond BODY_LIMIT. */
  streamsBody?: boolean;
  /**
   * A route answering a file on success says its Content-Type here (e.g. `application/x-tar`): its 2xx answers are that
   * file, streamed (Content-Length when known), not JSON. Errors are JSON as everywhere.
   */
  produces?: string;
  handler(ctx: RouteContext<InferParams<F>>): Promise<RouteResult>;
}

/** Keeps each route's param types tied to its handler. */
export function route<F extends ParamFields>(def: RouteDef<F>): RouteDef<ParamFields> {
  return def as unknown as RouteDef<ParamFields>;
}
