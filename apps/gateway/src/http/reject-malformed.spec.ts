import type { NextFunction, Request, Response } from 'express';
import { markMalformed, rejectMalformedParams, rejectMalformedRequests } from './reject-malformed';

function run(middleware: (req: Request, res: Response, next: NextFunction) => void, req: Partial<Request>) {
  const res = {
    statusCode: 0,
    headers: {} as Record<string, unknown>,
    payload: undefined as string | undefined,
    setHeader(name: string, value: unknown) {
      res.headers[name] = value;
    },
    end(payload?: string) {
      res.payload = payload;
    },
  };
  const next = jest.fn();
  middleware(Object.assign(req, { headers: req.headers ?? {}, url: req.url ?? '/' }) as Request, res as unknown as Response, next);
  return { passed: next.mock.calls.length === 1, res };
}

const BAD_REQUEST = { statusCode: 400, headers: { 'Content-Type': 'text/plain', 'Content-Length': 11 }, payload: 'Bad Request' };

describe('rejectMalformedRequests (path, query string, credentials)', () => {
  it.each(['/api/v4/projects/root%2Fdemo?search=caf%C3%A9&topic[]=a', '/-/health', '/api/v4/projects?x=a+b'])('passes %p', (url) =>
    expect(run(rejectMalformedRequests, { url }).passed).toBe(true),
  );
  it.each(['/api/v4/projects/%E0%A4%A', '/api/v4/projects/a%00b', '/api/v4/projects?search=a%00b', '/api/v4/projects?search=%C0', '/api/v4/projects?q=100%'])(
    'answers %p with 400 text/plain "Bad Request"',
    (url) => {
      const { passed, res } = run(rejectMalformedRequests, { url });
      expect(passed).toBe(false);
      expect(res).toMatchObject(BAD_REQUEST);
    },
  );
  it('answers malformed Authorization credentials with 400', () => {
    const authorization = `Basic ${Buffer.from('root\0:pw').toString('base64')}`;
    expect(run(rejectMalformedRequests, { url: '/api/v4/user', headers: { authorization } })).toMatchObject({ passed: false, res: BAD_REQUEST });
    expect(run(rejectMalformedRequests, { url: '/api/v4/user', headers: { authorization: 'Bearer glpat-x' } }).passed).toBe(true);
  });
});

describe('rejectMalformedParams (parsed body, file names, raw bodies flagged by the parsers)', () => {
  it('passes clean bodies', () => {
    expect(run(rejectMalformedParams, { body: { name: 'café', topics: ['a'] } }).passed).toBe(true);
    expect(run(rejectMalformedParams, { body: undefined }).passed).toBe(true);
  });
  it.each([
    ['a NUL in a value', { body: { name: 'a\0b' } }],
    ['a lone surrogate deep inside', { body: { a: [{ b: ['\ud800'] }] } }],
    ['a NUL in a key', { body: { 'na\0me': 'x' } }],
    ['a NUL in an uploaded file name', { body: {}, files: [{ fieldname: 'file', originalname: 'a\0.png' }] as unknown as Request['files'] }],
  ])('answers %s with 400', (_what, req) => expect(run(rejectMalformedParams, req)).toMatchObject({ passed: false, res: BAD_REQUEST }));
  it('answers a request whose raw body a parser flagged', () => {
    const req = { body: { name: 'x' } } as Partial<Request>;
    markMalformed(req);
    expect(run(rejectMalformedParams, req).passed).toBe(false);
  });
});
