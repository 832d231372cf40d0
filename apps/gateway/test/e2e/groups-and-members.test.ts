import { groupPermanentRemovalPath, startStack, type RunningStack } from '@glp/testing';

/**
 * Groups, group members and namespaces over HTTP: REST → gateway → gRPC → identity → PostgreSQL. Each step checks the
 * status, the GitLab body, and that the change is (or is not) visible afterwards. The tests share one stack and run in
 * order: alice owns the groups, bob becomes a developer, dave a maintainer of the parent group, carol stays outside.
 */
describe('groups, members and namespaces through the gateway', () => {
  let stack: RunningStack;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let top: { id: number; full_path: string };
  let child: { id: number; full_path: string };
  let open: { id: number };

  /** `as`: a user of `tokens`, `null` anonymous, default root. */
  const api = (path: string, init: RequestInit & { as?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const token = init.as === undefined ? stack.rootToken : init.as === null ? undefined : tokens[init.as];
    if (token) headers.set('PRIVATE-TOKEN', token);
    return fetch(`${stack.apiUrl}${path}`, { ...init, headers });
  };
  const json = (method: string, body: unknown) => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const form = (method: string, fields: Record<string, string>) => ({
    method,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const expectJson = async (res: Response, status: number) => {
    const text = await res.text();
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
    expect(res.headers.get('content-type')).toBe('application/json');
    return JSON.parse(text);
  };
  const expect404 = async (res: Response, message: string) => expect(await expectJson(res, 404)).toEqual({ message });
  const names = (list: Array<{ full_path?: string; username?: string }>) => list.map((x) => x.full_path ?? x.username).sort();

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_groups' });
    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      const user = await expectJson(
        await api('/users', json('POST', { username: name, name: name[0]!.toUpperCase() + name.slice(1), email: `${name}@example.com`, password: `${name}-password-1` })),
        201,
      );
      ids[name] = user.id;
      const pat = await expectJson(await api(`/users/${user.id}/personal_access_tokens`, json('POST', { name: 'e2e', scopes: ['api'] })), 201);
      tokens[name] = pat.token;
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a top-level group (GroupDetail, 201) and reads it back by id and by path', async () => {
    const res = await api('/groups', { ...form('POST', { name: 'Team A', path: 'team-a', description: 'The A team' }), as: 'alice' });
    const group = await expectJson(res, 201);
    expect(group).toMatchObject({
      name: 'Team A',
      path: 'team-a',
      full_path: 'team-a',
      full_name: 'Team A',
      description: 'The A team',
      visibility: 'private',
      parent_id: null,
      web_url: `${stack.url}/groups/team-a`,
      avatar_url: null,
      request_access_enabled: true,
      share_with_group_lock: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      subgroup_creation_level: 'maintainer',
      default_branch_protection: 2,
      lfs_enabled: true,
      shared_runners_setting: 'enabled',
      wiki_access_level: 'enabled',
      marked_for_deletion_on: null,
      shared_with_groups: [],
    });
    expect(typeof group.id).toBe('number');
    expect(group.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    top = group;

    const byId = await expectJson(await api(`/groups/${group.id}`, { as: 'alice' }), 200);
    expect(byId).toMatchObject({ id: group.id, full_path: 'team-a', shared_with_groups: [] });
    const byPath = await expectJson(await api('/groups/team-a', { as: 'alice' }), 200);
    expect(byPath.id).toBe(group.id);
    const plain = await expectJson(await api('/groups/team-a?with_projects=false', { as: 'alice' }), 200);
    expect(plain.id).toBe(group.id);
    expect(plain).not.toHaveProperty('shared_with_groups');
  });

  it('creates a subgroup under it: full_path a/b, parent_id, readable by encoded full path', async () => {
    const res = await api('/groups', { ...json('POST', { name: 'Child', path: 'child', parent_id: top.id }), as: 'alice' });
    child = await expectJson(res, 201);
    expect(child).toMatchObject({
      name: 'Child', path: 'child', full_path: 'team-a/child', full_name: 'Team A / Child', parent_id: top.id,
      web_url: `${stack.url}/groups/team-a/child`,
    });
    expect(child).not.toHaveProperty('prevent_sharing_groups_outside_hierarchy'); // root groups only

    const byPath = await expectJson(await api('/groups/team-a%2Fchild', { as: 'alice' }), 200);
    expect(byPath).toMatchObject({ id: child.id, parent_id: top.id });
    const byId = await expectJson(await api(`/groups/${child.id}`, { as: 'alice' }), 200);
    expect(byId.full_path).toBe('team-a/child');

    const subgroups = await expectJson(await api(`/groups/${top.id}/subgroups`, { as: 'alice' }), 200);
    expect(names(subgroups)).toEqual(['team-a/child']);
  });

  it('refuses a duplicate path, an invalid path and bad params with GitLab\'s 400 bodies, creating nothing', async () => {
    const before = Number((await api('/groups?per_page=1', { as: 'alice' })).headers.get('x-total'));

    const dup = await api('/groups', { ...form('POST', { name: 'Another', path: 'team-a' }), as: 'alice' });
    expect(await expectJson(dup, 400)).toEqual({ message: 'Failed to save group {:path=>["has already been taken"]}' });

    const badPath = await expectJson(await api('/groups', { ...form('POST', { name: 'Bad', path: 'bad path!' }), as: 'alice' }), 400);
    expect(badPath.message).toMatch(/^Failed to save group \{:path=>\["/);

    const badVisibility = await api('/groups', { ...form('POST', { name: 'Vis', path: 'vis', visibility: 'secret' }), as: 'alice' });
    expect(await expectJson(badVisibility, 400)).toEqual({ error: 'visibility does not have a valid value' });
    const missing = await api('/groups', { ...form('POST', { name: 'Nameless' }), as: 'alice' });
    expect(await expectJson(missing, 400)).toEqual({ error: 'path is missing' });
    const anonymous = await api('/groups', { ...form('POST', { name: 'Anon', path: 'anon' }), as: null });
    expect(await expectJson(anonymous, 401)).toEqual({ message: '401 Unauthorized' });

    const after = await api('/groups?per_page=1', { as: 'alice' });
    expect(Number(after.headers.get('x-total'))).toBe(before);
    await expect404(await api('/groups/vis', { as: 'alice' }), '404 Group Not Found');
  });

  it('lists groups with pagination headers, search and subgroups filtering', async () => {
    const res = await api('/groups?per_page=1&order_by=id&sort=asc', { as: 'alice' });
    const page1 = await expectJson(res, 200);
    expect(page1).toHaveLength(1);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.headers.get('x-total-pages')).toBe('2');
    expect(res.headers.get('x-per-page')).toBe('1');
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-next-page')).toBe('2');
    expect(res.headers.get('x-prev-page')).toBe('');
    expect(res.headers.get('link')).toContain(`<${stack.apiUrl}/groups?order_by=id&page=2&per_page=1&sort=asc>; rel="next"`);
    expect(page1[0].id).toBe(top.id);
    expect(page1[0]).not.toHaveProperty('shared_with_groups'); // listings use Entities::Group

    const all = await expectJson(await api('/groups', { as: 'alice' }), 200);
    expect(names(all)).toEqual(['team-a', 'team-a/child']);
    const topOnly = await expectJson(await api('/groups?top_level_only=true', { as: 'alice' }), 200);
    expect(names(topOnly)).toEqual(['team-a']);
    const search = await api('/groups?search=chil', { as: 'alice' });
    expect(names(await expectJson(search, 200))).toEqual(['team-a/child']);
    expect(search.headers.get('x-total')).toBe('1');
    const skipped = await expectJson(await api(`/groups?skip_groups[]=${child.id}`, { as: 'alice' }), 200);
    expect(names(skipped)).toEqual(['team-a']);

    const bad = await api('/groups?min_access_level=35', { as: 'alice' });
    expect(await expectJson(bad, 400)).toEqual({ error: 'min_access_level does not have a valid value' });
  });

  it('hides a private group from non-members and anonymous callers (404, never 403)', async () => {
    await expect404(await api(`/groups/${top.id}`, { as: 'carol' }), '404 Group Not Found');
    await expect404(await api('/groups/team-a%2Fchild', { as: 'carol' }), '404 Group Not Found');
    await expect404(await api(`/groups/${top.id}`, { as: null }), '404 Group Not Found');
    await expect404(await api(`/groups/${top.id}/subgroups`, { as: null }), '404 Group Not Found');
    await expect404(await api('/groups/no-such-group', { as: 'alice' }), '404 Group Not Found');
    await expect404(await api('/groups/99999999999999999999', { as: 'alice' }), '404 Group Not Found');
    expect(names(await expectJson(await api('/groups', { as: 'carol' }), 200))).toEqual([]);
    expect(names(await expectJson(await api('/groups', { as: null }), 200))).toEqual([]);
    // carol cannot change or remove what she cannot see
    await expect404(await api(`/groups/${top.id}`, { ...form('PUT', { description: 'x' }), as: 'carol' }), '404 Group Not Found');
    await expect404(await api(`/groups/${top.id}`, { method: 'DELETE', as: 'carol' }), '404 Group Not Found');
  });

  it('shows a public group to anonymous callers, in the listing and by path', async () => {
    open = await expectJson(await api('/groups', { ...form('POST', { name: 'Open', path: 'open', visibility: 'public' }), as: 'alice' }), 201);
    const anon = await expectJson(await api('/groups/open', { as: null }), 200);
    expect(anon).toMatchObject({ id: open.id, visibility: 'public', full_path: 'open' });
    expect(names(await expectJson(await api('/groups', { as: null }), 200))).toEqual(['open']);
    const carolSees = await expectJson(await api('/groups?all_available=true', { as: 'carol' }), 200);
    expect(names(carolSees)).toContain('open');
    expect(names(carolSees)).not.toContain('team-a');
  });

  it('shows administrators every group and every namespace', async () => {
    expect((await expectJson(await api(`/groups/${top.id}`), 200)).full_path).toBe('team-a');
    const groups = await api('/groups?order_by=path');
    expect(names(await expectJson(groups, 200))).toEqual(['open', 'team-a', 'team-a/child']);
    expect(groups.headers.get('x-total')).toBe('3');
    expect(names(await expectJson(await api('/groups?search=child'), 200))).toEqual(['team-a/child']);
    const namespaces = await expectJson(await api('/namespaces?per_page=100'), 200);
    expect(names(namespaces)).toEqual(expect.arrayContaining(['root', 'alice', 'bob', 'carol', 'dave', 'team-a', 'team-a/child', 'open']));
    const topLevel = await expectJson(await api('/namespaces?per_page=100&top_level_only=true'), 200);
    expect(names(topLevel)).not.toContain('team-a/child');
  });

  it('adds members (201), refusing duplicates (409), unknown users (404) and bad access levels (400)', async () => {
    const added = await expectJson(await api(`/groups/${top.id}/members`, { ...form('POST', { user_id: String(ids.bob), access_level: '30' }), as: 'alice' }), 201);
    expect(added).toMatchObject({
      id: ids.bob, username: 'bob', name: 'Bob', state: 'active', web_url: `${stack.url}/bob`, access_level: 30, expires_at: null,
      membership_state: 'active', created_by: { id: ids.alice, username: 'alice' },
    });
    expect(added.created_at).toMatch(/Z$/);

    const byName = await api(`/groups/team-a/members`, { ...json('POST', { username: 'dave', access_level: 40, expires_at: '2099-12-31' }), as: 'alice' });
    expect(await expectJson(byName, 201)).toMatchObject({ id: ids.dave, access_level: 40, expires_at: '2099-12-31' });

    const dup = await api(`/groups/${top.id}/members`, { ...form('POST', { user_id: String(ids.bob), access_level: '20' }), as: 'alice' });
    expect(await expectJson(dup, 409)).toEqual({ message: 'Member already exists' });
    const unknown = await api(`/groups/${top.id}/members`, { ...form('POST', { user_id: '987654', access_level: '30' }), as: 'alice' });
    expect(await expectJson(unknown, 404)).toEqual({ message: '404 User Not Found' });
    const badLevel = await api(`/groups/${top.id}/members`, { ...form('POST', { user_id: String(ids.carol), access_level: '35' }), as: 'alice' });
    expect(await expectJson(badLevel, 400)).toEqual({ error: 'access_level does not have a valid value' });
    const neither = await api(`/groups/${top.id}/members`, { ...form('POST', { access_level: '30' }), as: 'alice' });
    expect(await expectJson(neither, 400)).toEqual({ error: 'user_id, username are missing, at least one parameter must be provided' });

    // still exactly one membership for bob, at the level first given; none for carol
    const bob = await expectJson(await api(`/groups/${top.id}/members/${ids.bob}`, { as: 'alice' }), 200);
    expect(bob).toMatchObject({ id: ids.bob, access_level: 30 });
    await expect404(await api(`/groups/${top.id}/members/${ids.carol}`, { as: 'alice' }), '404 Not found');
  });

  it('lets only owners add members: a developer gets 403, and nothing is added', async () => {
    const res = await api(`/groups/${top.id}/members`, { ...form('POST', { user_id: String(ids.carol), access_level: '10' }), as: 'bob' });
    expect(await expectJson(res, 403)).toEqual({ message: '403 Forbidden' });
    await expect404(await api(`/groups/${top.id}/members/${ids.carol}`, { as: 'alice' }), '404 Not found');
  });

  it('lets maintainers of the parent create subgroups, not developers (403) nor outsiders (404)', async () => {
    const developer = await api('/groups', { ...form('POST', { name: 'By Bob', path: 'by-bob', parent_id: String(top.id) }), as: 'bob' });
    expect(await expectJson(developer, 403)).toEqual({ message: '403 Forbidden' });
    const outsider = await api('/groups', { ...form('POST', { name: 'By Carol', path: 'by-carol', parent_id: String(top.id) }), as: 'carol' });
    await expect404(outsider, '404 Group Not Found');
    await expect404(await api('/groups/team-a%2Fby-bob', { as: 'alice' }), '404 Group Not Found');

    const maintainer = await expectJson(await api('/groups', { ...form('POST', { name: 'By Dave', path: 'by-dave', parent_id: String(top.id) }), as: 'dave' }), 201);
    expect(maintainer).toMatchObject({ full_path: 'team-a/by-dave', parent_id: top.id });
    expect(await expectJson(await api(`/groups/${maintainer.id}`, { method: 'DELETE', as: 'alice' }), 202)).toEqual({ message: '202 Accepted' });
    await expect404(await api('/groups/team-a%2Fby-dave', { as: 'alice' }), '404 Group Not Found');
  });

  it('lists direct members with pagination, and inherited ones with /members/all', async () => {
    const res = await api(`/groups/${top.id}/members?per_page=2`, { as: 'bob' });
    const page = await expectJson(res, 200);
    expect(page).toHaveLength(2);
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.headers.get('x-total-pages')).toBe('2');
    const all = await expectJson(await api(`/groups/${top.id}/members?per_page=100`, { as: 'bob' }), 200);
    const levels = Object.fromEntries(all.map((m: { username: string; access_level: number }) => [m.username, m.access_level]));
    expect(levels).toEqual({ alice: 50, bob: 30, dave: 40 });
    const queried = await expectJson(await api(`/groups/${top.id}/members?query=dav`, { as: 'bob' }), 200);
    expect(names(queried)).toEqual(['dave']);
    const byIds = await expectJson(await api(`/groups/${top.id}/members?user_ids[]=${ids.bob}`, { as: 'bob' }), 200);
    expect(names(byIds)).toEqual(['bob']);

    // the subgroup has alice as its creator; dave and bob come from the parent
    const direct = await expectJson(await api(`/groups/${child.id}/members`, { as: 'dave' }), 200);
    expect(names(direct)).not.toContain('dave');
    const inherited = await expectJson(await api('/groups/team-a%2Fchild/members/all?per_page=100', { as: 'dave' }), 200);
    const dave = inherited.find((m: { username: string }) => m.username === 'dave');
    expect(dave).toMatchObject({ id: ids.dave, access_level: 40 });
    expect(names(inherited)).toEqual(expect.arrayContaining(['alice', 'bob', 'dave']));
    const one = await expectJson(await api(`/groups/${child.id}/members/all/${ids.dave}`, { as: 'dave' }), 200);
    expect(one).toMatchObject({ id: ids.dave, access_level: 40 });
    await expect404(await api(`/groups/${child.id}/members/${ids.dave}`, { as: 'dave' }), '404 Not found');

    // members need a signed-in caller and a readable group
    expect(await expectJson(await api(`/groups/${top.id}/members`, { as: null }), 401)).toEqual({ message: '401 Unauthorized' });
    await expect404(await api(`/groups/${top.id}/members`, { as: 'carol' }), '404 Group Not Found');
  });

  it('updates a group as its owner (200) but not as a developer (403)', async () => {
    const denied = await api(`/groups/${top.id}`, { ...form('PUT', { description: 'by bob' }), as: 'bob' });
    expect(await expectJson(denied, 403)).toEqual({ message: '403 Forbidden' });
    const updated = await expectJson(await api(`/groups/${top.id}`, { ...json('PUT', { description: 'Renamed team', name: 'Team Alpha' }), as: 'alice' }), 200);
    expect(updated).toMatchObject({ id: top.id, name: 'Team Alpha', description: 'Renamed team', path: 'team-a', full_name: 'Team Alpha' });
    const read = await expectJson(await api(`/groups/${top.id}`, { as: 'bob' }), 200);
    expect(read).toMatchObject({ name: 'Team Alpha', description: 'Renamed team' });
    const sub = await expectJson(await api(`/groups/${child.id}`, { as: 'bob' }), 200);
    expect(sub.full_name).toBe('Team Alpha / Child');
    const empty = await api(`/groups/${top.id}`, { ...form('PUT', {}), as: 'alice' });
    expect((await expectJson(empty, 400)).error).toMatch(/at least one parameter must be provided$/);
  });

  it('changes a member\'s access level, then removes the member (204, then 404)', async () => {
    const changed = await expectJson(await api(`/groups/${top.id}/members/${ids.bob}`, { ...form('PUT', { access_level: '20' }), as: 'alice' }), 200);
    expect(changed).toMatchObject({ id: ids.bob, access_level: 20 });
    expect((await expectJson(await api(`/groups/${top.id}/members/${ids.bob}`, { as: 'alice' }), 200)).access_level).toBe(20);
    const badLevel = await api(`/groups/${top.id}/members/${ids.bob}`, { ...form('PUT', { access_level: '31' }), as: 'alice' });
    expect(await expectJson(badLevel, 400)).toEqual({ error: 'access_level does not have a valid value' });
    await expect404(await api(`/groups/${top.id}/members/${ids.carol}`, { ...form('PUT', { access_level: '20' }), as: 'alice' }), '404 Not found');
    // expires_at: kept when absent, cleared when sent empty
    const kept = await expectJson(await api(`/groups/${top.id}/members/${ids.dave}`, { ...form('PUT', { access_level: '40' }), as: 'alice' }), 200);
    expect(kept.expires_at).toBe('2099-12-31');
    const cleared = await expectJson(await api(`/groups/${top.id}/members/${ids.dave}`, { ...form('PUT', { access_level: '40', expires_at: '' }), as: 'alice' }), 200);
    expect(cleared.expires_at).toBeNull();

    const removed = await api(`/groups/${top.id}/members/${ids.bob}`, { method: 'DELETE', as: 'alice' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    await expect404(await api(`/groups/${top.id}/members/${ids.bob}`, { as: 'alice' }), '404 Not found');
    await expect404(await api(`/groups/${top.id}/members/${ids.bob}`, { method: 'DELETE', as: 'alice' }), '404 Not found');
    // bob no longer sees the private group
    await expect404(await api(`/groups/${top.id}`, { as: 'bob' }), '404 Group Not Found');
  });

  it('lists a user\'s namespaces: their personal namespace and their groups', async () => {
    const res = await api('/namespaces', { as: 'dave' });
    const list = await expectJson(res, 200);
    expect(res.headers.get('x-total')).toBe(String(list.length));
    const personal = list.find((n: { kind: string }) => n.kind === 'user');
    expect(personal).toEqual({
      id: expect.any(Number), name: expect.any(String), path: 'dave', kind: 'user', full_path: 'dave', parent_id: null, avatar_url: null,
      web_url: `${stack.url}/dave`,
    });
    const group = list.find((n: { full_path: string }) => n.full_path === 'team-a');
    expect(group).toEqual({
      id: top.id, name: 'Team Alpha', path: 'team-a', kind: 'group', full_path: 'team-a', parent_id: null, avatar_url: null,
      web_url: `${stack.url}/groups/team-a`,
    });
    expect(names(list)).not.toContain('open');
    const searched = await expectJson(await api('/namespaces?search=team', { as: 'dave' }), 200);
    expect(searched.map((n: { kind: string }) => n.kind)).not.toContain('user');

    const own = await expectJson(await api(`/namespaces/${personal.id}`, { as: 'dave' }), 200);
    expect(own).toMatchObject({ kind: 'user', full_path: 'dave' });
    const byPath = await expectJson(await api('/namespaces/team-a', { as: 'dave' }), 200);
    expect(byPath).toMatchObject({ id: top.id, kind: 'group' });
    await expect404(await api(`/namespaces/${top.id}`, { as: 'carol' }), '404 Namespace Not Found');
    await expect404(await api('/namespaces/team-a', { as: 'carol' }), '404 Namespace Not Found');
    await expect404(await api(`/namespaces/${personal.id}`, { as: 'carol' }), '404 Namespace Not Found');
    expect(await expectJson(await api('/namespaces', { as: null }), 401)).toEqual({ message: '401 Unauthorized' });
  });

  it('deletes a group (202 Accepted): marked for deletion as GitLab 18 does, then removed with its subgroups by permanently_remove', async () => {
    const denied = await api(`/groups/${open.id}`, { method: 'DELETE', as: 'dave' });
    expect(denied.status).toBe(403);
    const res = await api(`/groups/${open.id}`, { method: 'DELETE', as: 'alice' });
    expect(await expectJson(res, 202)).toEqual({ message: '202 Accepted' });
    // Marked, renamed, still readable until its deletion is due or it is removed for good.
    const marked = await expectJson(await api(`/groups/${open.id}`, { as: 'alice' }), 200);
    expect(marked).toMatchObject({ path: `open-deletion_scheduled-${open.id}`, marked_for_deletion_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    await expect404(await api('/groups/open', { as: null }), '404 Group Not Found');
    expect(await api(groupPermanentRemovalPath({ id: open.id, full_path: 'open' }), { method: 'DELETE', as: 'alice' })).toHaveProperty('status', 202);
    await expect404(await api(`/groups/${open.id}`, { as: 'alice' }), '404 Group Not Found');

    expect(await expectJson(await api(`/groups/${top.id}`, { method: 'DELETE', as: 'alice' }), 202)).toEqual({ message: '202 Accepted' });
    expect(await api(groupPermanentRemovalPath(top), { method: 'DELETE', as: 'alice' })).toHaveProperty('status', 202);
    await expect404(await api(`/groups/${top.id}`, { as: 'alice' }), '404 Group Not Found');
    await expect404(await api('/groups/team-a%2Fchild', { as: 'alice' }), '404 Group Not Found');
    await expect404(await api(`/groups/team-a-deletion_scheduled-${top.id}%2Fchild`, { as: 'alice' }), '404 Group Not Found');
    expect(names(await expectJson(await api('/groups', { as: 'alice' }), 200))).toEqual([]);
    const namespaces = await expectJson(await api('/namespaces', { as: 'dave' }), 200);
    expect(names(namespaces)).toEqual(['dave']);
  });
});
