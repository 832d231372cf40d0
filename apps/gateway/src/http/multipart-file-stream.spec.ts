import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { readUntilFile } from './multipart-file-stream';

/** A request whose multipart body stops in the middle of a file part (the client went away, or lied). */
function truncated(partName: string): IncomingMessage {
  const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
  (req as { headers: Record<string, string> }).headers = { 'content-type': 'multipart/form-data; boundary=XX' };
  req.end(`--XX\r\nContent-Disposition: form-data; name="${partName}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhalf a fi`);
  return req;
}

describe('readUntilFile with a body cut short', () => {
  it('hands over the file, whose reader sees the error; the process does not', async () => {
    const read = await readUntilFile(truncated('file'), 'file');
    expect(read.kind).toBe('done');
    const file = read.kind === 'done' ? read.file! : undefined;
    await expect((async () => { for await (const _ of file!.stream) { /* drain */ } })()).rejects.toThrow(/Unexpected end of form/);
  });

  it('answers a cut-short part it does not keep as a malformed body (400), and survives it', async () => {
    const read = await readUntilFile(truncated('other'), 'file');
    expect(read.kind).toBe('malformed');
    await new Promise((r) => setTimeout(r, 20)); // an unhandled 'error' would fail the test run here
  });
});

describe('readUntilFile with a part that has no name', () => {
  it('leaves the part out of the fields and still finds the file (the unnamed part crashed the gateway)', async () => {
    const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
    (req as { headers: Record<string, string> }).headers = { 'content-type': 'multipart/form-data; boundary=XX' };
    req.end('--XX\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n--XX\r\nContent-Disposition: form-data; name="title"\r\n\r\nt\r\n'
      + '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nbody\r\n--XX--\r\n');
    const read = await readUntilFile(req, 'file');
    expect(read.kind).toBe('done');
    if (read.kind !== 'done') return;
    expect(read.fields).toEqual({ title: 't' });
    expect(read.file?.fileName).toBe('a.txt');
    read.file?.stream.resume();
  });
});
