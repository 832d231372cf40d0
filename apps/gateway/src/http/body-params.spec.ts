import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { bodyParams } from './body-params';
import { errorHandler, INVALID_JSON_MESSAGE } from './errors';
import { rejectMalformedRequests } from './reject-malformed';
import { sendJson } from './respond';

/** The body parsers as the gateway mounts them, in an in-process Express app on a loopback port (no infrastructure). */

let server: Server;
let url: string;
const logger = { error: jest.fn() };

beforeAll(async () => {
  const app = express();
  app.use(rejectMalformedRequests);
  app.use(bodyParams('2kb'));
  app.post('/echo', (req, res) => {
    const files = ((req.files ?? []) as Express.Multer.File[]).map((f) => ({ field: f.fieldname, name: f.originalname, content: f.buffer.toString() }));
    sendJson(res, 200, { body: req.body ?? null, files });
  });
  app.use(errorHandler(logger));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
});
afterAll(() => new Promise((r) => server.close(r)));
afterEach(() => expect(logger.error).not.toHaveBeenCalled()); // nothing here is an unexpected failure

const post = async (body: RequestInit['body'], contentType?: string) => {
  const res = await fetch(url, { method: 'POST', body, headers: contentType ? { 'Content-Type': contentType } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};
const multipart = (parts: Array<Buffer | string>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
const BAD_REQUEST = { status: 400, type: 'text/plain', text: 'Bad Request' };

describe('multipart/form-data', () => {
  it('merges fields like urlencoded bodies (bracket syntax), keeps files on the request and names them among the params', async () => {
    const form = new FormData();
    form.append('name', 'mp');
    form.append('topics[]', 'a');
    form.append('topics[]', 'b');
    form.append('h[k]', 'café ✓');
    form.append('file', new Blob(['file body\0with a NUL']), 'notes.txt');
    const res = await post(form);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      // A file is a param too (an UploadedFile; its bytes are not enumerable), as Grape sees Rack's uploaded files.
      body: { name: 'mp', topics: ['a', 'b'], h: { k: 'café ✓' }, file: { fieldName: 'file', originalName: 'notes.txt', mimeType: 'application/octet-stream', size: 20 } },
      files: [{ field: 'file', name: 'notes.txt', content: 'file body\0with a NUL' }],
    });
  });

  it('answers a field that is not UTF-8 with 400 Bad Request', async () => {
    const body = multipart(['--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\n', Buffer.from([0x61, 0xe9, 0x62]), '\r\n--zz--\r\n']);
    expect(await post(body, 'multipart/form-data; boundary=zz')).toEqual(BAD_REQUEST);
  });

  it('parses an indexed field (`h[98]`, a sparse array) and still decodes and checks its value (a hole crashed the gateway)', async () => {
    const form = new FormData();
    form.append('name', 'x');
    form.append('h[98]', 'caf\u00e9');
    const res = await post(form);
    expect(res.status).toBe(200);
    const body = (JSON.parse(res.text) as { body: { name: string; h: unknown[] } }).body;
    expect([body.name, body.h.length, body.h[98]]).toEqual(['x', 99, 'caf\u00e9']);
    const bad = multipart(['--zz\r\nContent-Disposition: form-data; name="h[5]"\r\n\r\n', Buffer.from([0x61, 0xe9, 0x62]), '\r\n--zz--\r\n']);
    expect(await post(bad, 'multipart/form-data; boundary=zz')).toEqual(BAD_REQUEST);
  });

  it('answers a NUL in a field with 400 Bad Request', async () => {
    const form = new FormData();
    form.append('name', 'a\0b');
    expect(await post(form)).toEqual(BAD_REQUEST);
  });

  it.each([
    ['no boundary', 'multipart/form-data', 'name=x'],
    ['a truncated body', 'multipart/form-data; boundary=zz', '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx'],
    ['garbage', 'multipart/form-data; boundary=zz', 'garbage'],
  ])('answers %s with 400 Bad Request, never a 500', async (_what, type, body) => {
    expect(await post(body, type)).toEqual(BAD_REQUEST);
  });

  it('answers a body beyond BODY_LIMIT with 413', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x'.repeat(4096)]), 'big.bin');
    expect(await post(form)).toEqual({ status: 413, type: 'application/json', text: '{"message":"413 Request Entity Too Large"}' });
  });
});

describe('JSON and urlencoded bodies', () => {
  it('parses both', async () => {
    expect(JSON.parse((await post('{"name":"x","topics":["a"]}', 'application/json')).text).body).toEqual({ name: 'x', topics: ['a'] });
    expect(JSON.parse((await post('name=x&topics[]=a', 'application/x-www-form-urlencoded')).text).body).toEqual({ name: 'x', topics: ['a'] });
  });
  it.each([
    ['a NUL escape in JSON', '{"name":"a\\u0000b"}', 'application/json'],
    ['a lone surrogate in JSON', '{"name":"\\ud800"}', 'application/json'],
    ['bytes that are not UTF-8 in JSON', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x22, 0x7d]), 'application/json'],
    ['a bad escape in a form', 'name=%E0%A4%A', 'application/x-www-form-urlencoded'],
    ['an escape that is not UTF-8 in a form', 'name=caf%E9', 'application/x-www-form-urlencoded'],
    ['a NUL in a form', 'name=a%00b', 'application/x-www-form-urlencoded'],
  ])('answers %s with 400 Bad Request', async (_what, body, type) => {
    expect(await post(body, type)).toEqual(BAD_REQUEST);
  });
  it('keeps Grape\'s answer to invalid JSON', async () => {
    expect(await post('{"name":', 'application/json')).toEqual({ status: 400, type: 'application/json', text: JSON.stringify({ error: INVALID_JSON_MESSAGE }) });
  });
  it('leaves other content types out of the params', async () => {
    expect(JSON.parse((await post('name=x', 'text/plain')).text).body).toBeNull();
  });
});
