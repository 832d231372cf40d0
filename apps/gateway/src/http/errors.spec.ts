import type { NextFunction, Request, Response } from 'express';
import type { ErrorKind } from '@glp/service-kit';
import { HttpError, INVALID_JSON_MESSAGE, errorHandler, fromDomainError, toHttpError } from './errors';

describe('HttpError constructors (GitLab bodies)', () => {
  it.each([
    [HttpError.unauthorized(), 401, { message: '401 Unauthorized' }],
    [HttpError.unauthorized('Token invalid'), 401, { message: '401 Unauthorized - Token invalid' }],
    [HttpError.forbidden(), 403, { message: '403 Forbidden' }],
    [HttpError.forbidden('Must be admin to use sudo'), 403, { message: '403 Forbidden - Must be admin to use sudo' }],
    [HttpError.notFound('Project'), 404, { message: '404 Project Not Found' }],
    [HttpError.notFound(), 404, { message: '404 Not Found' }],
    [HttpError.recordNotFound(), 404, { message: '404 Not found' }],
    [HttpError.routeNotFound(), 404, { error: '404 Not Found' }],
    [HttpError.badRequest('Invalid scope'), 400, { message: '400 Bad request - Invalid scope' }],
    [HttpError.badRequest(), 400, { message: '400 Bad request' }],
    [HttpError.paramError('name is missing, path is missing'), 400, { error: 'name is missing, path is missing' }],
    [HttpError.validation({ name: ['has already been taken'] }), 400, { message: { name: ['has already been taken'] } }],
    [HttpError.conflict('Member already exists'), 409, { message: 'Member already exists' }],
    [HttpError.conflict(), 409, { message: '409 Conflict' }],
    [HttpError.unprocessable('Project push rule exists'), 422, { message: 'Project push rule exists' }],
    [HttpError.unprocessable(), 422, { message: '422 Unprocessable Entity' }],
    [HttpError.methodNotAllowed(), 405, { message: '405 Method Not Allowed' }],
    [
      HttpError.methodNotAllowed('Non GET methods are not allowed for moved projects'),
      405,
      { message: 'Non GET methods are not allowed for moved projects' },
    ],
    [HttpError.notAcceptable(), 406, { message: '406 Not Acceptable' }],
    [HttpError.payloadTooLarge(), 413, { message: '413 Request Entity Too Large' }],
    [HttpError.unsupportedMediaType('text/plain'), 415, { error: "The provided content-type 'text/plain' is not supported." }],
    [HttpError.tooManyRequests(), 429, { message: '429 Too Many Requests' }],
    [
      HttpError.rateLimited(),
      429,
      { message: { error: 'This endpoint has been requested too many times. Try again later.' } },
    ],
    [HttpError.serviceUnavailable(), 503, { message: '503 Service Unavailable' }],
    [HttpError.preconditionFailed(), 412, { message: '412 Precondition Failed' }],
    [HttpError.internal(), 500, { message: '500 Internal Server Error' }],
  ])('%#: status and body', (e, status, body) => {
    expect(e).toBeInstanceOf(HttpError);
    expect(e).toBeInstanceOf(Error);
    expect(e.status).toBe(status);
    expect(e.body).toEqual(body);
  });
  it('304 has no body', () => {
    expect(HttpError.notModified().status).toBe(304);
    expect(HttpError.notModified().body).toBeUndefined();
  });
  it('429 carries Retry-After: 60; the rate-limit variant does not', () => {
    expect(HttpError.tooManyRequests().headers).toEqual({ 'Retry-After': '60' });
    expect(HttpError.rateLimited().headers).toEqual({});
  });
});

describe('fromDomainError', () => {
  it.each([
    ['not_found', 'Project', undefined, 404, { message: '404 Project Not Found' }],
    ['not_found', '', undefined, 404, { message: '404 Not Found' }],
    ['forbidden', '', undefined, 403, { message: '403 Forbidden' }],
    ['forbidden', 'Project is archived', undefined, 403, { message: '403 Forbidden - Project is archived' }],
    ['unauthenticated', '', undefined, 401, { message: '401 Unauthorized' }],
    ['invalid', 'name has already been taken', { name: ['has already been taken'] }, 400, { message: { name: ['has already been taken'] } }],
    ['invalid', 'oops', undefined, 400, { message: '400 Bad request - oops' }],
    ['bad_request', 'Invalid scope', undefined, 400, { message: '400 Bad request - Invalid scope' }],
    ['rejected', 'Project has not been marked for deletion', undefined, 400, { message: 'Project has not been marked for deletion' }],
    ['conflict', 'Email has already been taken', undefined, 409, { message: 'Email has already been taken' }],
    ['unprocessable', 'Project push rule exists', undefined, 422, { message: 'Project push rule exists' }],
    ['precondition_failed', 'stale', undefined, 412, { message: '412 Precondition Failed' }],
    ['unavailable', 'db down at 10.0.0.3', undefined, 503, { message: '503 Service Unavailable' }],
    ['internal', 'null pointer', undefined, 500, { message: '500 Internal Server Error' }],
    ['moved', 'Project', undefined, 404, { message: '404 Project Not Found' }], // off a route's :id (movedProjectHandler answers there)
  ] as Array<[ErrorKind, string, Record<string, string[]> | undefined, number, unknown]>)('%s %p → %i', (kind, message, fields, status, body) => {
    const e = fromDomainError(kind, message, fields);
    expect(e.status).toBe(status);
    expect(e.body).toEqual(body);
  });
  it('not_modified → 304 without body', () => {
    const e = fromDomainError('not_modified', 'not modified');
    expect([e.status, e.body]).toEqual([304, undefined]);
  });
});

describe('toHttpError', () => {
  it('passes HttpErrors through', () => {
    const e = HttpError.forbidden();
    expect(toHttpError(e)).toEqual({ error: e, known: true });
  });
  it('recognises DomainError-shaped errors', () => {
    const domain = Object.assign(new Error('Project'), { name: 'DomainError', kind: 'not_found' });
    expect(toHttpError(domain).error.body).toEqual({ message: '404 Project Not Found' });
    const invalid = Object.assign(new Error('x'), { kind: 'invalid', fields: { path: ['is invalid'] } });
    expect(toHttpError(invalid).error.body).toEqual({ message: { path: ['is invalid'] } });
    expect(toHttpError(Object.assign(new Error('boom'), { kind: 'internal' })).known).toBe(false);
  });
  it('maps body-parser errors', () => {
    const parse = Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed', status: 400, expose: true });
    expect(toHttpError(parse).error).toMatchObject({ status: 400, body: { error: INVALID_JSON_MESSAGE } });
    const big = Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, expose: true });
    expect(toHttpError(big).error).toMatchObject({ status: 413, body: { message: '413 Request Entity Too Large' } });
    const charset = Object.assign(new Error('unsupported charset "X"'), { type: 'charset.unsupported', status: 415, expose: true });
    expect(toHttpError(charset).error).toMatchObject({ status: 415, body: { error: 'unsupported charset "X"' } });
    const aborted = Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400, expose: true });
    expect(toHttpError(aborted).error).toMatchObject({ status: 400, body: { error: 'request aborted' } });
  });
  it('a body whose Content-Encoding does not decode (zlib error wrapped by http-errors, no type) is a 400', () => {
    const zlib = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', status: 400, statusCode: 400, expose: true });
    expect(toHttpError(zlib)).toEqual({ error: new HttpError(400, { error: 'incorrect header check' }), known: true });
    const internal = Object.assign(new Error('db down'), { status: 500, expose: false });
    expect(toHttpError(internal).error.status).toBe(500);
  });
  it('anything else is an unknown 500', () => {
    expect(toHttpError(new TypeError('x is undefined'))).toEqual({ error: HttpError.internal(), known: false });
    expect(toHttpError('string thrown').error.status).toBe(500);
    expect(toHttpError(undefined).error.status).toBe(500);
  });
  it('the Grape invalid-JSON message is exact', () => {
    expect(JSON.stringify({ error: INVALID_JSON_MESSAGE })).toBe(
      '{"error":"\\nProblem:\\n  message body does not match declared format\\nResolution:\\n  when specifying application/json as content-type, you must pass valid application/json in the request\'s \'body\' "}',
    );
  });
});

describe('errorHandler', () => {
  function fakeRes(headersSent = false) {
    const res = {
      headersSent,
      statusCode: 200,
      headers: {} as Record<string, string>,
      body: undefined as unknown,
      ended: false,
      status(code: number) {
        res.statusCode = code;
        return res;
      },
      setHeader(name: string, value: string) {
        res.headers[name] = value;
        return res;
      },
      end(payload?: string) {
        if (payload !== undefined) res.body = JSON.parse(payload);
        res.ended = true;
        return res;
      },
    };
    return res;
  }
  const req = { method: 'GET', originalUrl: '/api/v4/projects/1' } as Request;
  const run = (err: unknown, res = fakeRes()) => {
    const logger = { error: jest.fn() };
    const next = jest.fn();
    errorHandler(logger)(err, req, res as unknown as Response, next as NextFunction);
    return { res, logger, next };
  };

  it('renders HttpError bodies and headers without logging', () => {
    const { res, logger } = run(HttpError.tooManyRequests());
    expect(res.statusCode).toBe(429);
    expect(res.body).toEqual({ message: '429 Too Many Requests' });
    expect(res.headers).toEqual({ 'Retry-After': '60', 'Content-Type': 'application/json', 'Content-Length': 35 });
    expect(logger.error).not.toHaveBeenCalled();
  });
  it('sends 304 without a body', () => {
    const { res } = run(HttpError.notModified());
    expect(res.statusCode).toBe(304);
    expect(res.body).toBeUndefined();
    expect(res.ended).toBe(true);
  });
  it('logs unknown errors and answers a generic 500 without the stack', () => {
    const boom = new Error('secret connection string');
    const { res, logger } = run(boom);
    expect(res.statusCode).toBe(500);
    expect(res.body).toEqual({ message: '500 Internal Server Error' });
    expect(JSON.stringify(res.body)).not.toContain('secret');
    expect(logger.error).toHaveBeenCalledWith({ err: boom, method: 'GET', url: '/api/v4/projects/1' }, 'request failed');
  });
  it('delegates to Express when headers were already sent', () => {
    const boom = new Error('late');
    const { res, next } = run(boom, fakeRes(true));
    expect(next).toHaveBeenCalledWith(boom);
    expect(res.ended).toBe(false);
  });
});
