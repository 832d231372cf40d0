import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * Uploads and project avatars through the whole stack (gateway → repo-admin's storage, projects' permissions), as GitLab
 * answers them (`lib/api/markdown_uploads.rb`, `Banzai::UploadsController`, `UploadsController`, Workhorse): the stack
 * runs with MAX_ATTACHMENT_SIZE=1 (MiB) and BODY_LIMIT=256kb, so an upload larger than any buffered body goes through.
 */
describe('uploads and avatars through the gateway', () => {
  let stack: RunningStack;
  let pool: Pool;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const SECRET = /^[0-9a-f]{32}$/;
  const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(3000)]);

  const api = (p: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${p}`, { ...init, headers, redirect: 'manual' });
  };
  const web = (p: string, as?: string | null) => {
    const headers = new Headers();
    const token = as === undefined ? stack.rootToken : as === null ? undefined : tokens[as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.url}${p}`, { headers, redirect: 'manual' });
  };
  /** A GET with the path exactly as written (fetch would resolve `%2e%2e` segments before sending). */
  const raw = (p: string, as: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(stack.url);
      const req = request({ host: url.hostname, port: url.port, path: p, headers: { 'PRIVATE-TOKEN': tokens[as]! } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const form = (field: string, bytes: Buffer, fileName: string, type = 'application/octet-stream', extra: Record<string, string> = {}) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(extra)) f.append(k, v);
    f.append(field, new Blob([bytes], { type }), fileName);
    return f;
  };
  const upload = (projectId: number, bytes: Buffer, fileName: string, as: string | null | undefined, type?: string) =>
    api(`/projects/${projectId}/uploads`, { method: 'POST', body: form('file', bytes, fileName, type), as });
  const hashedUploads = (id: number) => {
    const h = createHash('sha256').update(String(id)).digest('hex');
    return path.join(stack.storageRoot, '@uploads', '@hashed', h.slice(0, 2), h.slice(2, 4), h);
  };
  const filesUnder = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name) : []);
  const uploadRows = async (projectId: number) =>
    (await pool.query(`SELECT count(*)::int AS n FROM ${stack.schemas.repoAdmin}.uploads WHERE project_id = $1`, [projectId])).rows[0].n as number;

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_uploads', env: { MAX_ATTACHMENT_SIZE: '1', BODY_LIMIT: '256kb' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    for (const name of ['alice', 'bob', 'carol']) {
      const user = await expectJson(await api('/users', json('POST', { username: name, name: `${name[0]!.toUpperCase()}${name.slice(1)}`, email: `${name}@example.com`, password: `${name}-password-1` })), 201);
      ids[name] = user.id;
      tokens[name] = (await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201)).token;
    }
    ids.docs = (await expectJson(await api('/projects', { ...json('POST', { name: 'docs', visibility: 'private' }), as: 'alice' }), 201)).id;
    await expectJson(await api(`/projects/${ids.docs}/members`, { ...json('POST', { user_id: ids.bob, access_level: 30 }), as: 'alice' }), 201);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('uploads an image and a text file (any reader), with GitLab’s result, and serves them back at full_path', async () => {
    const image = await expectJson(await upload(ids.docs!, PNG, 'dk.png', 'bob', 'image/png'), 201);
    expect(Object.keys(image)).toEqual(['id', 'alt', 'url', 'full_path', 'markdown']);
    const secret = image.url.split('/')[2];
    expect(secret).toMatch(SECRET);
    expect(image).toEqual({
      id: expect.any(Number), alt: 'dk', url: `/uploads/${secret}/dk.png`, full_path: `/-/project/${ids.docs}/uploads/${secret}/dk.png`,
      markdown: `![dk](/uploads/${secret}/dk.png)`,
    });
    const text = await expectJson(await upload(ids.docs!, Buffer.from('<html><script>x</script>'), 'notes.txt', 'alice', 'text/plain'), 201);
    expect(text).toMatchObject({ alt: 'notes.txt', markdown: `[notes.txt](${text.url})` });

    // Banzai::UploadsController + Workhorse: bytes equal, the type from the bytes, inline for an image.
    const got = await web(image.full_path, 'bob');
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('content-disposition')).toBe(`inline; filename="dk.png"; filename*=UTF-8''dk.png`);
    expect(got.headers.get('content-length')).toBe(String(PNG.length));
    expect(got.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    // HTML in a .txt is plain text, and an attachment.
    const note = await web(text.full_path, 'bob');
    expect(note.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(note.headers.get('content-disposition')).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
    expect(await note.text()).toBe('<html><script>x</script>');
    // Who may not read the project: a redirect to sign in when anonymous, 404 when signed in.
    const anon = await web(image.full_path, null);
    expect(anon.status).toBe(302);
    expect(anon.headers.get('location')).toBe(`${stack.url}/users/sign_in`);
    expect((await web(image.full_path, 'carol')).status).toBe(404);
    expect((await web(`/-/project/${ids.docs}/uploads/${secret}/other.png`, 'bob')).status).toBe(404);

    // The API's download: present_disk_file! (octet-stream, attachment).
    const viaApi = await api(`/projects/${ids.docs}/uploads/${secret}/dk.png`, { as: 'bob' });
    expect(viaApi.status).toBe(200);
    expect(viaApi.headers.get('content-type')).toBe('application/octet-stream');
    expect(viaApi.headers.get('content-disposition')).toBe(`attachment; filename="dk.png"; filename*=UTF-8''dk.png`);
    expect(Buffer.from(await viaApi.arrayBuffer()).equals(PNG)).toBe(true);
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads/${'0'.repeat(32)}/dk.png`, { as: 'bob' }), 404)).toEqual({ message: '404 Not Found' });
  });

  it('streams an upload larger than BODY_LIMIT, and refuses one beyond MAX_ATTACHMENT_SIZE with Workhorse’s 413, keeping nothing', async () => {
    const big = randomBytes(700 * 1024);
    const stored = await expectJson(await upload(ids.docs!, big, 'big.bin', 'alice'), 201);
    expect(Buffer.from(await (await web(stored.full_path, 'alice')).arrayBuffer()).equals(big)).toBe(true);

    const rowsBefore = await uploadRows(ids.docs!);
    const filesBefore = filesUnder(hashedUploads(ids.docs!)).sort();
    const tooBig = await upload(ids.docs!, randomBytes(1024 * 1024 + 1), 'too-big.bin', 'alice');
    expect(tooBig.status).toBe(413);
    expect(tooBig.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await tooBig.text()).toBe('Request Entity Too Large\n');
    expect(await uploadRows(ids.docs!)).toBe(rowsBefore);
    expect(filesUnder(hashedUploads(ids.docs!)).sort()).toEqual(filesBefore);
    expect(filesUnder(path.join(stack.storageRoot, '@uploads', 'tmp'))).toEqual([]);
    // Exactly the limit passes.
    await expectJson(await upload(ids.docs!, randomBytes(1024 * 1024), 'exact.bin', 'alice'), 201);
  });

  it('answers a missing or invalid file, an anonymous caller and a hidden project as GitLab', async () => {
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads`, { method: 'POST', body: new FormData(), as: 'alice' }), 400)).toEqual({ error: 'file is missing' });
    const textField = new FormData();
    textField.append('file', 'not a file');
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads`, { method: 'POST', body: textField, as: 'alice' }), 400)).toEqual({ error: 'file is invalid' });
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads`, { ...json('POST', {}), as: 'alice' }), 400)).toEqual({ error: 'file is missing' });
    expect(await expectJson(await upload(ids.docs!, PNG, 'a.png', null), 401)).toEqual({ message: '401 Unauthorized' });
    expect(await expectJson(await upload(ids.docs!, PNG, 'a.png', 'carol'), 404)).toEqual({ message: '404 Project Not Found' });
    const broken = await api(`/projects/${ids.docs}/uploads`, {
      method: 'POST', as: 'alice', headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' }, body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
    });
    expect(broken.status).toBe(400);
  });

  it('makes path traversal harmless: names are sanitized, `..` is refused, nothing lands outside the project’s directory', async () => {
    const sneaky = await expectJson(await upload(ids.docs!, Buffer.from('x'), '../../../../etc/evil.txt', 'alice'), 201);
    expect(sneaky.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/evil\.txt$/);
    const secret = sneaky.url.split('/')[2];
    expect(existsSync(path.join(hashedUploads(ids.docs!), secret, 'evil.txt'))).toBe(true);
    expect(existsSync(path.join(stack.storageRoot, 'etc'))).toBe(false);
    const dots = await expectJson(await upload(ids.docs!, Buffer.from('y'), '..', 'alice'), 201);
    expect(dots.alt).toBe('_..');

    expect(await raw(`/-/project/${ids.docs}/uploads/${secret}/%2e%2e`, 'alice')).toEqual({ status: 400, body: '' });
    expect(await raw(`/-/project/${ids.docs}/uploads/${secret}/..`, 'alice')).toEqual({ status: 400, body: '' });
    expect(await raw(`/api/v4/projects/${ids.docs}/uploads/${secret}/%2e%2e`, 'alice')).toEqual({ status: 400, body: '{"error":"filename should be a valid file path"}' });
    expect(await raw(`/api/v4/projects/${ids.docs}/uploads/${secret}/%252e%252e`, 'alice')).toEqual({ status: 400, body: '{"error":"filename should be a valid file path"}' });
    expect((await raw(`/api/v4/projects/${ids.docs}/uploads/..%2F..%2F${secret}/evil.txt`, 'alice')).status).toBe(404);
    expect((await raw(`/-/project/${ids.docs}/uploads/${'..%2F'.repeat(6)}etc/passwd`, 'alice')).status).toBe(404);
    expect((await raw(`/-/project/${ids.docs}/uploads/${secret}/..%2F..%2F..%2Fetc%2Fpasswd`, 'alice')).status).toBe(400);
  });

  it('lists, reads by id and deletes for Maintainers only (403 for a Developer, 404 when hidden)', async () => {
    const fresh = await expectJson(await upload(ids.docs!, Buffer.from('bye'), 'bye.txt', 'bob'), 201);
    const listed = await api(`/projects/${ids.docs}/uploads?per_page=2`, { as: 'alice' });
    const items = await expectJson(listed, 200);
    expect(listed.headers.get('x-total')).toBe(String(await uploadRows(ids.docs!)));
    expect(listed.headers.get('x-per-page')).toBe('2');
    expect(items).toHaveLength(2);
    expect(items[0]).toEqual({
      id: fresh.id, size: 3, filename: 'bye.txt', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      uploaded_by: { id: ids.bob, username: 'bob', name: 'Bob' },
    });
    expect(items[1].id).toBeLessThan(fresh.id); // newest first
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads`, { as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads`, { as: 'carol' }), 404)).toEqual({ message: '404 Project Not Found' });

    expect(await expectJson(await api(`/projects/${ids.docs}/uploads/${fresh.id}`, { as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    const byId = await api(`/projects/${ids.docs}/uploads/${fresh.id}`, { as: 'alice' });
    expect(byId.status).toBe(200);
    expect(await byId.text()).toBe('bye');

    const secret = fresh.url.split('/')[2];
    const file = path.join(hashedUploads(ids.docs!), secret, 'bye.txt');
    expect(existsSync(file)).toBe(true);
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads/${fresh.id}`, { method: 'DELETE', as: 'bob' }), 403)).toEqual({ message: '403 Forbidden' });
    const gone = await api(`/projects/${ids.docs}/uploads/${fresh.id}`, { method: 'DELETE', as: 'alice' });
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe('');
    expect(existsSync(file)).toBe(false);
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads/${fresh.id}`, { method: 'DELETE', as: 'alice' }), 404)).toEqual({ message: '404 Not found' });
    expect((await web(fresh.full_path, 'alice')).status).toBe(404);

    const other = await expectJson(await upload(ids.docs!, Buffer.from('z'), 'z.txt', 'alice'), 201);
    const otherSecret = other.url.split('/')[2];
    expect((await api(`/projects/${ids.docs}/uploads/${otherSecret}/z.txt`, { method: 'DELETE', as: 'alice' })).status).toBe(204);
    expect(await expectJson(await api(`/projects/${ids.docs}/uploads/${otherSecret}/z.txt`, { method: 'DELETE', as: 'alice' }), 400)).toEqual({
      message: "400 Bad request - The resource that you are attempting to access does not exist or you don't have permission to perform this action.",
    });
  });

  it('sets, shows, serves, replaces and removes a project avatar; refuses a file that is not an image', async () => {
    const put = (body: FormData | string, as = 'alice', type?: string) =>
      api(`/projects/${ids.docs}`, { method: 'PUT', body, as, headers: type ? { 'Content-Type': type } : undefined });
    const avatarDir = path.join(stack.storageRoot, '@uploads', '-', 'system', 'project', 'avatar', String(ids.docs));

    const set = await expectJson(await put(form('avatar', PNG, 'dk.png', 'image/png')), 200);
    const url = `${stack.url}/uploads/-/system/project/avatar/${ids.docs}/dk.png`;
    expect(set.avatar_url).toBe(url);
    expect((await expectJson(await api(`/projects/${ids.docs}`, { as: 'bob' }), 200)).avatar_url).toBe(url);
    expect((await expectJson(await api('/projects?membership=true&simple=true', { as: 'bob' }), 200)).find((p: { id: number }) => p.id === ids.docs).avatar_url).toBe(url);
    const served = await web(`/uploads/-/system/project/avatar/${ids.docs}/dk.png`, 'bob');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('max-age=300, private, must-revalidate');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await web(`/uploads/-/system/project/avatar/${ids.docs}/dk.png`, null)).status).toBe(302);
    // GET /projects/:id/avatar (GitLab 16.9).
    const viaApi = await api(`/projects/${ids.docs}/avatar`, { as: 'bob' });
    expect(viaApi.status).toBe(200);
    expect(viaApi.headers.get('content-disposition')).toBe(`attachment; filename="dk.png"; filename*=UTF-8''dk.png`);
    expect(Buffer.from(await viaApi.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await web(`/uploads/-/system/project/avatar/${ids.docs}/dk.png`, 'carol')).status).toBe(404);

    // Not an image: the Project model's error; nothing changes, nothing stays on disk.
    const NOT_SUPPORTED = 'file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon';
    expect(await expectJson(await put(form('avatar', Buffer.from('hello'), 'notes.txt', 'text/plain')), 400)).toEqual({ message: { avatar: [NOT_SUPPORTED] } });
    expect(await expectJson(await put(form('avatar', Buffer.concat([PNG, Buffer.alloc(200 * 1024)]), 'big.png', 'image/png')), 400))
      .toEqual({ message: { avatar: ['is too big (should be at most 200 KB)'] } });
    expect(await expectJson(await put(form('avatar', PNG, 'x.png', 'image/png', { name: '' })), 400)).toMatchObject({ message: { name: expect.any(Array) } });
    expect(await expectJson(await put(form('avatar', PNG, 'x.png', 'image/png'), 'bob'), 403)).toEqual({ message: '403 Forbidden' });
    expect(await expectJson(await put('avatar=abc', 'alice', 'application/x-www-form-urlencoded'), 400)).toEqual({ error: 'avatar is invalid' });
    expect((await expectJson(await api(`/projects/${ids.docs}`, { as: 'alice' }), 200)).avatar_url).toBe(url);
    expect(filesUnder(avatarDir)).toEqual(['dk.png']);

    // Replaced: the previous file goes.
    const replaced = await expectJson(await put(form('avatar', PNG, 'logo.png', 'image/png')), 200);
    expect(replaced.avatar_url).toBe(`${stack.url}/uploads/-/system/project/avatar/${ids.docs}/logo.png`);
    expect(filesUnder(avatarDir)).toEqual(['logo.png']);
    expect((await web(`/uploads/-/system/project/avatar/${ids.docs}/dk.png`, 'bob')).status).toBe(404);

    // `avatar=` removes it.
    expect((await expectJson(await put('avatar=', 'alice', 'application/x-www-form-urlencoded'), 200)).avatar_url).toBeNull();
    expect(filesUnder(avatarDir)).toEqual([]);
    expect((await web(`/uploads/-/system/project/avatar/${ids.docs}/logo.png`, 'alice')).status).toBe(404);
    expect(await expectJson(await api(`/projects/${ids.docs}/avatar`, { as: 'alice' }), 404)).toEqual({ message: '404 Avatar Not Found' });

    // With POST /projects.
    const created = await expectJson(await api('/projects', { method: 'POST', body: form('avatar', PNG, 'new.png', 'image/png', { name: 'with-avatar' }), as: 'carol' }), 201);
    expect(created.avatar_url).toBe(`${stack.url}/uploads/-/system/project/avatar/${created.id}/new.png`);
    expect(await expectJson(await api('/projects', { method: 'POST', body: form('avatar', Buffer.from('x'), 'a.txt', 'text/plain', { name: 'no-avatar' }), as: 'carol' }), 400))
      .toEqual({ message: { avatar: [NOT_SUPPORTED] } });
  });
});
