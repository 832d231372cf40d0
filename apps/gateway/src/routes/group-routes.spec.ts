import { parseParams } from '../http/params';
import { apiRoutes } from './index';

/** The Grape answers of the groups, members and namespaces param schemas (400 `{"error": ...}` before any service call). */
const routes = apiRoutes('18.6.0', 'test');
const schema = (key: string) => {
  const r = routes.find((x) => `${x.method} ${x.path}` === key);
  if (!r) throw new Error(`no route ${key}`);
  return r.params;
};
const error = (key: string, raw: Record<string, unknown>) => {
  const r = parseParams(schema(key), raw);
  return r.ok ? undefined : r.error;
};

describe('groups, members and namespaces params', () => {
  it('POST /groups needs name and path and a known visibility', () => {
    expect(error('POST /groups', {})).toBe('name is missing, path is missing');
    expect(error('POST /groups', { name: 'a', path: 'a', visibility: 'secret' })).toBe('visibility does not have a valid value');
    expect(error('POST /groups', { name: 'a', path: 'a', parent_id: 'x' })).toBe('parent_id is invalid');
    expect(error('POST /groups', { name: 'a', path: 'a', parent_id: '3', request_access_enabled: 'false' })).toBeUndefined();
  });

  it('GET /groups validates its filters and defaults order_by/sort like GitLab', () => {
    expect(error('GET /groups', { min_access_level: '35' })).toBe('min_access_level does not have a valid value');
    expect(error('GET /groups', { order_by: 'created_at' })).toBe('order_by does not have a valid value');
    expect(error('GET /groups', { per_page: '0' })).toBe('per_page has a value not allowed');
    const ok = parseParams(schema('GET /groups'), { skip_groups: '1,2' });
    expect(ok).toMatchObject({ ok: true, value: { skip_groups: [1, 2], order_by: 'name', sort: 'asc', owned: false, page: 1, per_page: 20 } });
  });

  it('PUT /groups/:id needs at least one attribute', () => {
    expect(error('PUT /groups/:id', { id: '1' })).toBe(
      'name, path, description, visibility, request_access_enabled are missing, at least one parameter must be provided',
    );
  });

  it('POST /groups/:id/members takes user_id or username and a valid access_level', () => {
    const key = 'POST /groups/:id/members';
    expect(error(key, { id: '1', access_level: '30' })).toBe('user_id, username are missing, at least one parameter must be provided');
    expect(error(key, { id: '1', user_id: '2', username: 'x', access_level: '30' })).toBe('user_id, username are mutually exclusive');
    expect(error(key, { id: '1', user_id: '2', access_level: '35' })).toBe('access_level does not have a valid value');
    expect(error(key, { id: '1', user_id: '2' })).toBe('access_level is missing, access_level does not have a valid value');
    expect(error(key, { id: '1', user_id: '2', access_level: '30', expires_at: '2020-02-30' })).toBe('expires_at is invalid');
    expect(error(key, { id: '1', username: 'alice', access_level: 50, expires_at: '2030-01-01' })).toBeUndefined();
  });

  it('member routes take an integer user_id; /members/all is matched before /members/:user_id', () => {
    expect(error('GET /groups/:id/members/:user_id', { id: '1', user_id: 'abc' })).toBe('user_id is invalid');
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    expect(paths.indexOf('GET /groups/:id/members/all')).toBeLessThan(paths.indexOf('GET /groups/:id/members/:user_id'));
  });
});
