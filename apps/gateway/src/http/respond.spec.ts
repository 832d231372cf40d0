import type { ServerResponse } from 'node:http';
import { JsonBytes, jsonArray, sendJson, sendText } from './respond';

function fakeRes(method = 'GET') {
  const res = {
    req: { method },
    statusCode: 0,
    headers: {} as Record<string, string | number>,
    payload: undefined as string | Buffer | undefined,
    ended: false,
    setHeader(name: string, value: string | number) {
      res.headers[name] = value;
      return res;
    },
    end(payload?: string | Buffer) {
      res.payload = payload;
      res.ended = true;
      return res;
    },
  };
  return res;
}
const asRes = (r: ReturnType<typeof fakeRes>) => r as unknown as ServerResponse;

describe('sendJson', () => {
  it('sends serialized JSON (JsonBytes) as it is, with its byte length, and none of it to HEAD', () => {
    const r = fakeRes();
    const body = jsonArray([Buffer.from('{"name":"café"}'), Buffer.from('2')]);
    sendJson(asRes(r), 200, body, { 'X-Total': '2' });
    expect(r.headers).toEqual({ 'X-Total': '2', 'Content-Type': 'application/json', 'Content-Length': 20 });
    expect(r.payload).toBe(body.bytes);
    const head = fakeRes('HEAD');
    sendJson(asRes(head), 200, body);
    expect(head.headers['Content-Length']).toBe(20);
    expect(head.payload).toBeUndefined();
  });
  it('builds a JSON array of serialized items as JSON.stringify writes it', () => {
    const items = [{ a: 1 }, 'ü', [null], { b: { c: 'd' } }];
    for (let n = 0; n <= items.length; n++) {
      const made = jsonArray(items.slice(0, n).map((i) => Buffer.from(JSON.stringify(i))));
      expect(made).toBeInstanceOf(JsonBytes);
      expect(made.bytes.toString('utf8')).toBe(JSON.stringify(items.slice(0, n)));
    }
  });
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
