import type { ServerResponse } from 'node:http';
import { sendJson, sendText } from './respond';

function fakeRes(method = 'GET') {
  const res = {
    req: { method },
    statusCode: 0,
    headers: {} as Record<string, string | number>,
    payload: undefined as string | undefined,
    ended: false,
    setHeader(name: string, value: string | number) {
      res.headers[name] = value;
      return res;
    },
    end(payload?: string) {
      res.payload = payload;
      res.ended = true;
      return res;
    },
  };
  return res;
}
const asRes = (r: ReturnType<typeof fakeRes>) => r as unknown as ServerResponse;

describe('sendJson', () => {
  it('serializes once and sets exactly application/json and the byte length', () => {
    const r = fakeRes();
    sendJson(asRes(r), 201, { name: 'café' }, { 'X-Total': '3' });
    expect(r.statusCode).toBe(201);
    expect(r.headers).toEqual({ 'X-Total': '3', 'Content-Type': 'application/json', 'Content-Length': 16 });
    expect(r.payload).toBe('{"name":"café"}');
  });
  it('answers HEAD with the same headers and no body', () => {
    const r = fakeRes('HEAD');
    sendJson(asRes(r), 200, [1, 2], { Link: '<x>; rel="first"' });
    expect(r.headers).toEqual({ Link: '<x>; rel="first"', 'Content-Type': 'application/json', 'Content-Length': 5 });
    expect(r.payload).toBeUndefined();
    expect(r.ended).toBe(true);
  });
  it('sends no body and no Content-Type for an undefined body (204, 304)', () => {
    const r = fakeRes();
    sendJson(asRes(r), 204, undefined, { 'X-A': '1' });
    expect([r.statusCode, r.headers, r.payload, r.ended]).toEqual([204, { 'X-A': '1' }, undefined, true]);
  });
});

describe('sendText', () => {
  it('is text/plain with a length', () => {
    const r = fakeRes();
    sendText(asRes(r), 400, 'Bad Request');
    expect([r.statusCode, r.headers, r.payload]).toEqual([400, { 'Content-Type': 'text/plain', 'Content-Length': 11 }, 'Bad Request']);
  });
});
