/*
 * The routes without a project (apps/gateway/src/routes/index.ts, `apiRoutes`), the third matrix of issue #13 after
 * project-access-matrix.test.ts (#8) and access-matrix-services.test.ts (the project-scoped rest):
 *
 *   GET    /groups/:id, /groups/:id/subgroups                       READ_GROUP           × group visibility
 *   PUT    /groups/:id; DELETE /groups/:id                          ADMIN_GROUP          × group visibility
 *   POST   /groups                                                  SIGNED_IN            × the new group's visibility
 *   GET    /groups/:id/members, /members/all, /members/:user_id     GROUP_MEMBER_READ    × group visibility
 *   POST, PUT, DELETE /groups/:id/members(/:user_id)                ADMIN_GROUP          × group visibility
 *   GET    /groups/:id/access_requests                              ADMIN_GROUP          × group visibility
 *   POST   /groups/:id/access_requests                              REQUEST_ACCESS       × group visibility
 *   PUT    …/access_requests/:user_id/approve, DELETE …/:user_id     DECIDE_NO_REQUEST    × group visibility
 *   GET    /namespaces; /namespaces/:id                             SIGNED_IN; NAMESPACE_READ
 *   GET    /user, /version, /metadata, /personal_access_tokens(/self)  SIGNED_IN
 *   GET    /users; /users/:id, /users/:user_id/projects, /starred_projects  ANYONE × {self, another, an admin}
 *   PUT    /users/:id; POST /users/:user_id/personal_access_tokens  ADMIN_ONLY           × {self, another, an admin}
 *   POST   /users; DELETE /users/:id; POST /users/:id/block, /unblock  ADMIN_ONLY (another user)
 *   GET    /personal_access_tokens/:id                              TOKEN_READ           × {own, another's, an admin's}
 *   POST   /personal_access_tokens/:id/rotate                       TOKEN_ROTATE (another's)
 *   DELETE /personal_access_tokens/:id                              TOKEN_REVOKE (another's)
 *   GET, PUT /application/settings                                  ADMIN_ONLY
 *
 * Not here: DELETE /personal_access_tokens/self, POST /personal_access_tokens/self/rotate and rotating one's own token
 * by id — they end the caller's own token
 * (users-and-tokens.test.ts covers them); group access request approval of a real requester (the project one is in
 * access-matrix-services.test.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';
import { matrixHttp, type Answer, type Req } from './access-matrix/matrix-http';

/**
 * Issue #13: every endpoint without a project × ten callers × (group visibility | target user), 0 mismatches; a group
 * the caller cannot see is 404 "Group Not Found", never 403.
 *
 * The callers: anonymous, a signed-in non-member, Guest, Reporter, Developer and Maintainer of the three groups, their
 * Owner (who created them), the administrator (no membership), a BLOCKED user (Maintainer of the groups, blocked with
 * POST /users/:id/block after their token was made) and an EXPIRED token (a Maintainer's, `expires_at` set to
 * yesterday with SQL). As in access-matrix-services.test.ts (GitLab lib/api/api_guard.rb,
 * lib/gitlab/auth/user_access_denied_reason.rb): a blocked user's token is 403 "403 Forbidden - Your account has been
 * blocked." and an expired token is 401 `invalid_token` on every route, anonymous ones included.
 *
 * The expected answers are hand-written from GitLab's source, one table per rule; never computed from production code.
 */

const CALLERS = ['anon', 'stranger', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'blocked', 'expired'] as const;
type Caller = (typeof CALLERS)[number];
const VISIBILITIES = ['public', 'internal', 'private'] as const;
type Visibility = (typeof VISIBILITIES)[number];
/** The users a /users route is about: the caller themself, another (non-admin) user, an administrator. */
const TARGETS = ['self', 'other', 'admin_user'] as const;
type Row = Visibility | (typeof TARGETS)[number] | 'any';

type Outcome = 'ok' | 401 | 403 | '404g' | '404ns' | '404rec' | 400 | 'blocked' | 'expired' | '-';
const EXPIRED_DESCRIPTION = 'Token is expired. You can either do re-authorization or token refresh.';
const DENIALS: Record<Exclude<Outcome, 'ok' | '-'>, { status: number; body: unknown }> = {
  /** `authenticate!` / `authenticate_non_get!` / `authenticated_as_admin!` without a user (lib/api/helpers.rb). */
  401: { status: 401, body: { message: '401 Unauthorized' } },
  /** `authorize!` / `authenticated_as_admin!` / Gitlab::Access::AccessDeniedError for a signed-in user. */
  403: { status: 403, body: { message: '403 Forbidden' } },
  /** `find_group!` (lib/api/helpers.rb): hidden is indistinguishable from missing. */
  '404g': { status: 404, body: { message: '404 Group Not Found' } },
  /** `find_namespace!`: `read_namespace_via_membership` (group_policy.rb: `rule { has_access }`). */
  '404ns': { status: 404, body: { message: '404 Namespace Not Found' } },
  /** `find_by!` → ActiveRecord::RecordNotFound (lib/api/api.rb). */
  '404rec': { status: 404, body: { message: '404 Not found' } },
  /** PersonalAccessTokens::RevokeService refusing → `bad_request!(nil)`. */
  400: { status: 400, body: { message: '400 Bad request' } },
  blocked: { status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } },
  expired: { status: 401, body: { error: 'invalid_token', error_description: EXPIRED_DESCRIPTION } },
};

type Table = Partial<Record<Row, readonly Outcome[]>>;
const HIDDEN_FROM: Partial<Record<Row, readonly Caller[]>> = { public: [], internal: ['anon'], private: ['anon', 'stranger'] };
function table(t: Table): Table {
  for (const [row, cells] of Object.entries(t) as [Row, readonly Outcome[]][]) {
    if (cells.length !== CALLERS.length) throw new Error(`table row ${row} has ${cells.length} cells`);
    for (const c of HIDDEN_FROM[row] ?? []) if (cells[CALLERS.indexOf(c)] === 403) throw new Error(`table row ${row}: 403 for ${c}, who cannot see the group`);
  }
  return t;
}

// ─── Expectations ────────────────────────────────────────────────────────────────────────────────────────────────
// Columns:          anon  stranger guest reporter developer maint owner admin blocked    expired

/** GET /groups/:id, GET /groups/:id/subgroups (lib/api/groups.rb): `find_group!` (`read_group`), anonymous allowed. */
const READ_GROUP = table({
  public:   ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: ['404g', 'ok',  'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  ['404g', '404g', 'ok', 'ok',   'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * Owner-only group administration: PUT /groups/:id (`authorize! :admin_group`), DELETE /groups/:id
 * (`authorize! :remove_group`) in lib/api/groups.rb (`authenticate_non_get!`); POST/PUT/DELETE group members
 * (lib/api/members.rb: `authenticate!`, `find_source`, `admin_group_member` / `update_group_member` /
 * `destroy_group_member`, group_policy.rb: Owner); GET /groups/:id/access_requests (lib/api/access_requests.rb:
 * AccessRequestsFinder#execute! needs `admin_group_member`).
 */
const ADMIN_GROUP = table({
  public:   [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  '404g',  403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
});

/** GET /groups/:id/members(/all)(/:user_id) (lib/api/members.rb): `authenticate!`, `find_source`, `read_group_member` (= read_group). */
const GROUP_MEMBER_READ = table({
  public:   [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  '404g',  'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * POST /groups/:id/access_requests (lib/api/access_requests.rb): `authenticate!`, `find_source`, then
 * Members::RequestAccessService (`request_access`, group_policy.rb: prevented for whoever already has access — members,
 * and administrators, whose access level is Owner: app/models/group.rb `max_member_access_for_user`): 403.
 */
const REQUEST_ACCESS = table({
  public:   [401,  'ok',    403,  403,     403,      403,  403,  403,  'blocked', 'expired'],
  internal: [401,  'ok',    403,  403,     403,      403,  403,  403,  'blocked', 'expired'],
  private:  [401,  '404g',  403,  403,     403,      403,  403,  403,  'blocked', 'expired'],
});

/**
 * PUT …/access_requests/:user_id/approve and DELETE …/access_requests/:user_id of a user with no request
 * (lib/api/access_requests.rb): `find_source`, then `source.requesters.find_by!(user_id:)` before any authorization.
 */
const DECIDE_NO_REQUEST = table({
  public:   [401,  '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
  internal: [401,  '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
  private:  [401,  '404g',   '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
});

/**
 * GET /namespaces/:id (lib/api/namespaces.rb `find_namespace!` → lib/api/helpers.rb `check_namespace_access`:
 * `read_namespace_via_membership`, group_policy.rb `rule { has_access }`): members, and administrators (Owner access
 * through app/models/group.rb `max_member_access_for_user`); a non-member is 404 even on a public group.
 */
const NAMESPACE_READ = table({
  public:   [401,  '404ns', 'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  '404ns', 'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  '404ns', 'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * `authenticate!` and nothing else: POST /groups (the row is the new group's visibility; `can_create_group` is on by
 * default), GET /namespaces, GET /user (lib/api/users.rb), GET /version and /metadata, GET /personal_access_tokens
 * and /personal_access_tokens/self (lib/api/personal_access_tokens.rb).
 */
const SIGNED_IN_ROW = [401, 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'blocked', 'expired'] as const;
const SIGNED_IN = table({ any: SIGNED_IN_ROW });
const NEW_GROUP = table({ public: SIGNED_IN_ROW, internal: SIGNED_IN_ROW, private: SIGNED_IN_ROW });

/**
 * Anyone, anonymous included: GET /users, GET /users/:id (a user whose profile is visible), GET /users/:user_id/projects
 * and /starred_projects (lib/api/users.rb, lib/api/projects.rb). An anonymous caller has no "self" ('-').
 */
const ANYONE = table({
  any:        ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  self:       ['-',  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  other:      ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  admin_user: ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * `authenticated_as_admin!` (lib/api/users.rb: PUT /users/:id, POST /users, DELETE /users/:id, block, unblock,
 * POST /users/:user_id/personal_access_tokens; lib/api/settings.rb: GET/PUT /application/settings).
 */
const ADMIN_ROW = [401, 403, 403, 403, 403, 403, 403, 'ok', 'blocked', 'expired'] as const;
const ADMIN_ONLY = table({ any: ADMIN_ROW, self: ['-', ...ADMIN_ROW.slice(1)], other: ADMIN_ROW, admin_user: ADMIN_ROW });

/**
 * GET /personal_access_tokens/:id (lib/api/personal_access_tokens.rb): `authenticate!`, then the token is shown when
 * `can?(current_user, :read_user_personal_access_tokens, token.user)` (oneself, administrators), else
 * `current_user.can_admin_all_resources? ? not_found! : unauthorized!` ("Only admins should be informed if the token
 * doesn't exist"): 401 to everyone else.
 */
const TOKEN_READ = table({
  self:       ['-',  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  other:      [401,  401,     401,  401,     401,      401,  401,  'ok', 'blocked', 'expired'],
  admin_user: [401,  401,     401,  401,     401,      401,  401,  'ok', 'blocked', 'expired'],
});

/**
 * POST /personal_access_tokens/:id/rotate of another user's token (lib/api/personal_access_tokens.rb):
 * `manage_user_personal_access_token` on the token's user (administrators), else as GET: 401 to non-administrators.
 */
const TOKEN_ROTATE = table({ other: [401, 401, 401, 401, 401, 401, 401, 'ok', 'blocked', 'expired'] });

/**
 * DELETE /personal_access_tokens/:id of another user's token (lib/api/personal_access_tokens.rb): `find_token`, then
 * PersonalAccessTokens::RevokeService refuses (`revoke_token`: the owner or an administrator) → `bad_request!(nil)`.
 */
const TOKEN_REVOKE = table({ other: [401, 400, 400, 400, 400, 400, 400, 'ok', 'blocked', 'expired'] });

// ─── The runner ──────────────────────────────────────────────────────────────────────────────────────────────────

interface Endpoint {
  name: string;
  table: Table;
  request: (row: Row, caller: Caller) => Req;
  ok: (a: Answer, row: Row, caller: Caller) => string | undefined;
}
interface Cell { endpoint: Endpoint; row: Row; caller: Caller }

const CONCURRENCY = 8;
const cellName = (c: Cell) => `${c.endpoint.name} × ${c.row} × ${c.caller}`;
const expected = (c: Cell): Outcome => c.endpoint.table[c.row]![CALLERS.indexOf(c.caller)]!;
const expectKey = (what: string, got: unknown, want: unknown) => (isDeepStrictEqual(got, want) ? undefined : `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
const status = (a: Answer, want: number) => (a.status === want ? undefined : `expected ${want}, got ${a.status} ${a.text.slice(0, 300)}`);
const all = (...checks: (() => string | undefined)[]) => {
  for (const check of checks) {
    const wrong = check();
    if (wrong) return wrong;
  }
  return undefined;
};
const exactly = (want: number, body: unknown) => (a: Answer) => all(() => status(a, want), () => expectKey('body', a.body, body));
const isArray = (a: Answer) => all(() => status(a, 200), () => (Array.isArray(a.body) ? undefined : `expected an array, got ${a.text.slice(0, 200)}`));
const field = (a: Answer, key: string) => (a.body as Record<string, unknown> | undefined)?.[key];
const allowedIn = (t: Table, row: Row, c: Caller) => t[row]?.[CALLERS.indexOf(c)] === 'ok';

describe('access matrix of groups, namespaces, users, tokens and settings (issue #13)', () => {
  let stack: RunningStack;
  let pool: Pool;
  const tokens: Partial<Record<string, string>> = {};
  const ids: Record<string, number> = {};
  const groups = {} as Record<Visibility, number>;
  let cellsRun = 0;
  const mismatches: string[] = [];

  const { call, must } = matrixHttp(() => stack.apiUrl, tokens);

  async function runCell(c: Cell): Promise<string | undefined> {
    const want = expected(c);
    if (want === '-') throw new Error('a cell outside this matrix was run');
    const a = await call(c.caller === 'anon' ? null : c.caller, c.endpoint.request(c.row, c.caller));
    if (want === 'ok') {
      const wrong = c.endpoint.ok(a, c.row, c.caller);
      return wrong && `${cellName(c)}: ${wrong}`;
    }
    const denial = DENIALS[want];
    if (a.status !== denial.status || !isDeepStrictEqual(a.body, denial.body)) {
      return `${cellName(c)}: expected ${denial.status} ${JSON.stringify(denial.body)}, got ${a.status} ${a.text.slice(0, 300)}`;
    }
    const challenge = a.headers.get('www-authenticate') ?? '';
    if (want === 'expired' && !/^Bearer realm="[^"]*", error="invalid_token", error_description="Token is expired\. You can either do re-authorization or token refresh\."$/.test(challenge)) {
      return `${cellName(c)}: WWW-Authenticate ${JSON.stringify(challenge)}`;
    }
    return undefined;
  }

  async function runCells(cells: Cell[]): Promise<string[]> {
    const results: (string | undefined)[] = [];
    for (let i = 0; i < cells.length; i += CONCURRENCY) {
      results.push(...(await Promise.all(cells.slice(i, i + CONCURRENCY).map((c) => runCell(c).catch((err: unknown) => `${cellName(c)}: ${String(err)}`)))));
    }
    cellsRun += cells.length;
    const failed = results.filter((r): r is string => r !== undefined);
    mismatches.push(...failed);
    return failed;
  }

  const cellsOf = (endpoints: Endpoint[], callers: readonly Caller[] = CALLERS): Cell[] =>
    endpoints.flatMap((endpoint) => (Object.keys(endpoint.table) as Row[]).flatMap((row) => callers.map((caller) => ({ endpoint, row, caller }))))
      .filter((c) => expected(c) !== '-');

  /** Refusals first (all at once), then each allowed caller in turn, endpoint by endpoint in order: for cells whose allowed answers change state. */
  async function runInTurn(endpoints: Endpoint[]): Promise<string[]> {
    const failed = await runCells(cellsOf(endpoints).filter((c) => expected(c) !== 'ok'));
    for (const caller of CALLERS) {
      for (const endpoint of endpoints) failed.push(...(await runCells(cellsOf([endpoint], [caller]).filter((c) => expected(c) === 'ok'))));
    }
    return failed;
  }

  /** The user a /users row is about, for this caller. */
  const userOf = (row: Row, c: Caller) => (row === 'self' ? ids[c]! : row === 'admin_user' ? ids.admin2! : ids.target!);
  const groupOf = (row: Row) => groups[row as Visibility];

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_acl_instance' });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    tokens.admin = stack.rootToken;
    ids.admin = (await must('admin', 'GET', '/user', 200)).id;

    // Callers; `target` (another user), `admin2` (another administrator), `gm_<x>` users the member cells add, change
    // and remove, `del_target` (deleted by the administrator), `blk_target` (blocked and unblocked).
    const extras = ['target', 'admin2', 'gm_add_owner', 'gm_add_admin', 'gm_add_refused', 'gm_edit', 'gm_del_owner', 'gm_del_admin', 'del_target', 'blk_target'];
    const people = [...CALLERS.filter((c) => c !== 'anon' && c !== 'admin'), ...extras];
    await Promise.all(people.map(async (who) => {
      const username = `aci_${who}`;
      const user = await must('admin', 'POST', '/users', 201, { username, name: username, email: `${username}@example.com`, password: `${username}-password-1`, admin: who === 'admin2' });
      ids[who] = user.id;
      tokens[who] = (await must('admin', 'POST', `/users/${user.id}/personal_access_tokens`, 201, { name: 'matrix', scopes: ['api'] })).token;
    }));
    // A second token of `target` and of `admin2`: the ones GET/DELETE /personal_access_tokens/:id name; one of `target`'s to rotate.
    ids.targetToken = (await must('admin', 'POST', `/users/${ids.target}/personal_access_tokens`, 201, { name: 'spare', scopes: ['api'] })).id;
    ids.admin2Token = (await must('admin', 'POST', `/users/${ids.admin2}/personal_access_tokens`, 201, { name: 'spare', scopes: ['api'] })).id;
    ids.rotateToken = (await must('admin', 'POST', `/users/${ids.target}/personal_access_tokens`, 201, { name: 'rotatable', scopes: ['api'] })).id;
    // Each caller's own token id, looked up by the administrator (the expired token must not be used before it expires).
    for (const who of [...CALLERS.filter((c) => c !== 'anon' && c !== 'admin'), 'admin2']) {
      const own = (await must('admin', 'GET', `/personal_access_tokens?user_id=${ids[who]}&per_page=100`, 200)) as { id: number; name: string }[];
      ids[`token_${who}`] = own.find((t) => t.name === 'matrix')!.id;
    }
    ids.token_admin = (await must('admin', 'GET', '/personal_access_tokens/self', 200)).id;

    // The owner's three groups, each with a member at each role (the blocked user and the expired token's owner are
    // Maintainers), and `gm_edit`, `gm_del_*` as Reporters.
    for (const visibility of VISIBILITIES) {
      groups[visibility] = (await must('owner', 'POST', '/groups', 201, { name: `ACI ${visibility}`, path: `aci-${visibility}`, visibility })).id;
      await Promise.all(([['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40], ['blocked', 40], ['expired', 40], ['gm_edit', 20], ['gm_del_owner', 20], ['gm_del_admin', 20]] as const)
        .map(([who, level]) => must('owner', 'POST', `/groups/${groups[visibility]}/members`, 201, { user_id: ids[who], access_level: level })));
    }

    await must('blocked', 'GET', `/groups/${groups.private}/members`, 200);
    await must('admin', 'POST', `/users/${ids.blocked}/block`, 201);
    const expiredRows = await pool.query(`UPDATE ${stack.schemas.identity}.personal_access_tokens SET expires_at = current_date - 1 WHERE user_id = $1`, [ids.expired]);
    if (expiredRows.rowCount !== 1) throw new Error(`expected to expire one token, expired ${expiredRows.rowCount}`);
  }, 120_000);

  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`access matrix: ${cellsRun} cells, ${mismatches.length} mismatches`);
    await pool?.end();
    await stack?.stop();
  });

  // ─── Endpoints ───

  const groupGet = (suffix: string) => (row: Row): Req => ({ method: 'GET', path: `/groups/${groupOf(row)}${suffix}` });

  const groupReads: Endpoint[] = [
    { name: 'GET /groups/:id', table: READ_GROUP, request: groupGet(''), ok: (a, row) => all(() => status(a, 200), () => expectKey('[id, visibility]', [field(a, 'id'), field(a, 'visibility')], [groupOf(row), row])) },
    { name: 'GET /groups/:id/subgroups', table: READ_GROUP, request: groupGet('/subgroups'), ok: exactly(200, []) },
    {
      name: 'GET /groups/:id/members', table: GROUP_MEMBER_READ, request: groupGet('/members?per_page=100'),
      ok: (a) => all(() => isArray(a), () => expectKey('members', (a.body as { id: number }[]).length, 10)),
    },
    {
      name: 'GET /groups/:id/members/all', table: GROUP_MEMBER_READ, request: groupGet('/members/all?per_page=100'),
      ok: (a) => all(() => isArray(a), () => expectKey('members', (a.body as { id: number }[]).length, 10)),
    },
    {
      name: 'GET /groups/:id/members/:user_id', table: GROUP_MEMBER_READ, request: (row) => groupGet(`/members/${ids.gm_edit}`)(row),
      ok: (a) => all(() => status(a, 200), () => expectKey('[id, access_level]', [field(a, 'id'), field(a, 'access_level')], [ids.gm_edit, 20])),
    },
    { name: 'GET /groups/:id/access_requests', table: ADMIN_GROUP, request: groupGet('/access_requests'), ok: exactly(200, []) },
    {
      name: 'GET /namespaces/:id', table: NAMESPACE_READ, request: (row) => ({ method: 'GET', path: `/namespaces/${groupOf(row)}` }),
      ok: (a, row) => all(() => status(a, 200), () => expectKey('[id, kind]', [field(a, 'id'), field(a, 'kind')], [groupOf(row), 'group'])),
    },
  ];

  const instanceReads: Endpoint[] = [
    { name: 'GET /namespaces', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/namespaces' }), ok: isArray },
    { name: 'GET /user', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/user' }), ok: (a, _r, c) => all(() => status(a, 200), () => expectKey('id', field(a, 'id'), ids[c])) },
    { name: 'GET /version', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/version' }), ok: (a) => all(() => status(a, 200), () => (typeof field(a, 'version') === 'string' ? undefined : 'no version')) },
    { name: 'GET /metadata', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/metadata' }), ok: (a) => all(() => status(a, 200), () => expectKey('enterprise', field(a, 'enterprise'), false)) },
    { name: 'GET /personal_access_tokens', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/personal_access_tokens?per_page=100' }), ok: isArray },
    {
      name: 'GET /personal_access_tokens/self', table: SIGNED_IN, request: () => ({ method: 'GET', path: '/personal_access_tokens/self' }),
      ok: (a, _r, c) => all(() => status(a, 200), () => expectKey('[id, user_id]', [field(a, 'id'), field(a, 'user_id')], [ids[`token_${c}`], ids[c]])),
    },
    { name: 'GET /users', table: { any: ANYONE.any! }, request: () => ({ method: 'GET', path: '/users' }), ok: isArray },
    {
      name: 'GET /users/:id', table: { self: ANYONE.self!, other: ANYONE.other!, admin_user: ANYONE.admin_user! }, request: (row, c) => ({ method: 'GET', path: `/users/${userOf(row, c)}` }),
      ok: (a, row, c) => all(() => status(a, 200), () => expectKey('id', field(a, 'id'), userOf(row, c))),
    },
    {
      name: 'GET /users/:user_id/projects', table: { self: ANYONE.self!, other: ANYONE.other!, admin_user: ANYONE.admin_user! },
      request: (row, c) => ({ method: 'GET', path: `/users/${userOf(row, c)}/projects` }), ok: exactly(200, []),
    },
    {
      name: 'GET /users/:user_id/starred_projects', table: { self: ANYONE.self!, other: ANYONE.other!, admin_user: ANYONE.admin_user! },
      request: (row, c) => ({ method: 'GET', path: `/users/${userOf(row, c)}/starred_projects` }), ok: exactly(200, []),
    },
    {
      name: 'GET /personal_access_tokens/:id', table: TOKEN_READ,
      request: (row, c) => ({ method: 'GET', path: `/personal_access_tokens/${row === 'self' ? ids[`token_${c}`] : row === 'other' ? ids.targetToken : ids.admin2Token}` }),
      ok: (a, row, c) => all(() => status(a, 200), () => expectKey('user_id', field(a, 'user_id'), userOf(row, c))),
    },
    { name: 'GET /application/settings', table: { any: ADMIN_ONLY.any! }, request: () => ({ method: 'GET', path: '/application/settings' }), ok: (a) => all(() => status(a, 200), () => (typeof field(a, 'id') === 'number' ? undefined : `no id: ${a.text.slice(0, 200)}`)) },
  ];

  it('reads: groups, subgroups, members, access requests, namespaces, users, tokens, settings, version, metadata', async () => {
    expect(await runCells(cellsOf([...groupReads, ...instanceReads]))).toEqual([]);
  });

  it('group and member administration (Owner): edits land, refused callers change nothing', async () => {
    const failures = await runInTurn([
      {
        name: 'PUT /groups/:id', table: ADMIN_GROUP,
        request: (row, c) => ({ method: 'PUT', path: `/groups/${groupOf(row)}`, json: { description: `by ${c}` } }),
        ok: (a, _r, c) => all(() => status(a, 200), () => expectKey('description', field(a, 'description'), `by ${c}`)),
      },
      {
        name: 'POST /groups/:id/members', table: ADMIN_GROUP,
        request: (row, c) => ({ method: 'POST', path: `/groups/${groupOf(row)}/members`, json: { user_id: ids[allowedIn(ADMIN_GROUP, row, c) ? `gm_add_${c}` : 'gm_add_refused'], access_level: 10 } }),
        ok: (a, _r, c) => all(() => status(a, 201), () => expectKey('[id, access_level]', [field(a, 'id'), field(a, 'access_level')], [ids[`gm_add_${c}`], 10])),
      },
      {
        name: 'PUT /groups/:id/members/:user_id', table: ADMIN_GROUP,
        request: (row, c) => ({ method: 'PUT', path: `/groups/${groupOf(row)}/members/${ids.gm_edit}`, json: { access_level: allowedIn(ADMIN_GROUP, row, c) ? 30 : 40 } }),
        ok: (a) => all(() => status(a, 200), () => expectKey('[id, access_level]', [field(a, 'id'), field(a, 'access_level')], [ids.gm_edit, 30])),
      },
      {
        name: 'DELETE /groups/:id/members/:user_id', table: ADMIN_GROUP,
        request: (row, c) => ({ method: 'DELETE', path: `/groups/${groupOf(row)}/members/${ids[allowedIn(ADMIN_GROUP, row, c) ? `gm_del_${c}` : 'gm_edit']}` }),
        ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
      },
    ]);
    for (const v of VISIBILITIES) {
      const group = await must('owner', 'GET', `/groups/${groups[v]}?with_projects=false`, 200);
      if (group.description !== 'by admin') failures.push(`group × ${v}: description ${JSON.stringify(group.description)}, expected "by admin"`);
      const members = (await must('owner', 'GET', `/groups/${groups[v]}/members?per_page=100`, 200)) as { id: number; access_level: number }[];
      const of = (who: string) => members.find((m) => m.id === ids[who])?.access_level ?? null;
      const got = ['gm_add_owner', 'gm_add_admin', 'gm_add_refused', 'gm_edit', 'gm_del_owner', 'gm_del_admin'].map(of);
      if (!isDeepStrictEqual(got, [10, 10, null, 30, null, null])) failures.push(`members × ${v}: [gm_add_owner, gm_add_admin, gm_add_refused, gm_edit, gm_del_owner, gm_del_admin] levels ${JSON.stringify(got)}`);
    }
    expect(failures).toEqual([]);
  });

  it('group access requests: request (non-members), approve/deny a non-requester (404 for every reader)', async () => {
    const failures = await runCells(cellsOf([
      {
        name: 'POST /groups/:id/access_requests', table: REQUEST_ACCESS, request: (row) => ({ method: 'POST', path: `/groups/${groupOf(row)}/access_requests` }),
        ok: (a) => all(() => status(a, 201), () => expectKey('[id, state]', [field(a, 'id'), field(a, 'state')], [ids.stranger, 'active'])),
      },
      {
        name: 'PUT /groups/:id/access_requests/:user_id/approve', table: DECIDE_NO_REQUEST, request: (row) => ({ method: 'PUT', path: `/groups/${groupOf(row)}/access_requests/${ids.target}/approve` }),
        ok: () => 'allowed',
      },
      {
        name: 'DELETE /groups/:id/access_requests/:user_id', table: DECIDE_NO_REQUEST, request: (row) => ({ method: 'DELETE', path: `/groups/${groupOf(row)}/access_requests/${ids.target}` }),
        ok: () => 'allowed',
      },
    ]));
    for (const v of VISIBILITIES) {
      const left = ((await must('owner', 'GET', `/groups/${groups[v]}/access_requests`, 200)) as { id: number }[]).map((r) => r.id);
      const want = v === 'private' ? [] : [ids.stranger];
      if (!isDeepStrictEqual(left, want)) failures.push(`access requests × ${v}: ${JSON.stringify(left)}, expected ${JSON.stringify(want)}`);
    }
    expect(failures).toEqual([]);
  });

  it('creating groups (any signed-in user) and users, tokens, settings (administrators)', async () => {
    const failures = await runInTurn([
      {
        name: 'POST /groups', table: NEW_GROUP,
        request: (row, c) => ({ method: 'POST', path: '/groups', json: { name: `aci-new-${row}-${c}`, path: `aci-new-${row}-${c}`, visibility: row } }),
        ok: (a, row, c) => all(() => status(a, 201), () => expectKey('[path, visibility]', [field(a, 'path'), field(a, 'visibility')], [`aci-new-${row}-${c}`, row])),
      },
      {
        name: 'PUT /users/:id', table: { self: ADMIN_ONLY.self!, other: ADMIN_ONLY.other!, admin_user: ADMIN_ONLY.admin_user! },
        request: (row, c) => ({ method: 'PUT', path: `/users/${userOf(row, c)}`, json: { bio: `bio by ${c}` } }),
        ok: (a, row, c) => all(() => status(a, 200), () => expectKey('[id, bio]', [field(a, 'id'), field(a, 'bio')], [userOf(row, c), `bio by ${c}`])),
      },
      {
        name: 'POST /users/:user_id/personal_access_tokens', table: { self: ADMIN_ONLY.self!, other: ADMIN_ONLY.other!, admin_user: ADMIN_ONLY.admin_user! },
        request: (row, c) => ({ method: 'POST', path: `/users/${userOf(row, c)}/personal_access_tokens`, json: { name: `by-${c}`, scopes: ['read_user'] } }),
        ok: (a, row, c) => all(() => status(a, 201), () => expectKey('[user_id, name]', [field(a, 'user_id'), field(a, 'name')], [userOf(row, c), `by-${c}`])),
      },
      {
        name: 'POST /users', table: { any: ADMIN_ONLY.any! },
        request: (_r, c) => ({ method: 'POST', path: '/users', json: { username: `aci_new_${c}`, name: `aci_new_${c}`, email: `aci_new_${c}@example.com`, password: 'aci-new-password-1' } }),
        ok: (a, _r, c) => all(() => status(a, 201), () => expectKey('username', field(a, 'username'), `aci_new_${c}`)),
      },
      { name: 'POST /users/:id/block', table: { other: ADMIN_ONLY.other! }, request: () => ({ method: 'POST', path: `/users/${ids.blk_target}/block` }), ok: exactly(201, true) },
      { name: 'POST /users/:id/unblock', table: { other: ADMIN_ONLY.other! }, request: () => ({ method: 'POST', path: `/users/${ids.blk_target}/unblock` }), ok: exactly(201, true) },
      {
        name: 'PUT /application/settings', table: { any: ADMIN_ONLY.any! }, request: () => ({ method: 'PUT', path: '/application/settings', json: { deny_all_requests_except_allowed: false } }),
        ok: (a) => all(() => status(a, 200), () => expectKey('deny_all_requests_except_allowed', field(a, 'deny_all_requests_except_allowed'), false)),
      },
      {
        name: 'POST /personal_access_tokens/:id/rotate', table: TOKEN_ROTATE, request: () => ({ method: 'POST', path: `/personal_access_tokens/${ids.rotateToken}/rotate` }),
        ok: (a) => all(() => status(a, 200), () => expectKey('[user_id, name, revoked]', [field(a, 'user_id'), field(a, 'name'), field(a, 'revoked')], [ids.target, 'rotatable', false]),
          () => (typeof field(a, 'token') === 'string' ? undefined : 'no token')),
      },
      {
        name: 'DELETE /personal_access_tokens/:id', table: TOKEN_REVOKE, request: () => ({ method: 'DELETE', path: `/personal_access_tokens/${ids.targetToken}` }),
        ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
      },
      { name: 'DELETE /users/:id', table: { other: ADMIN_ONLY.other! }, request: () => ({ method: 'DELETE', path: `/users/${ids.del_target}` }), ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')) },
      {
        name: 'DELETE /groups/:id', table: ADMIN_GROUP,
        // Refused callers name the fixture group; the Owner and the administrator each delete a group of their own.
        request: (row, c) => ({ method: 'DELETE', path: `/groups/${allowedIn(ADMIN_GROUP, row, c) ? `aci-new-${row}-${c}` : groupOf(row)}` }),
        ok: exactly(202, { message: '202 Accepted' }),
      },
    ]);
    // Side effects: only the allowed callers' writes landed.
    const users = ((await must('admin', 'GET', '/users?search=aci_new_&per_page=100', 200)) as { username: string }[]).map((u) => u.username);
    if (!isDeepStrictEqual(users, ['aci_new_admin'])) failures.push(`users made: ${JSON.stringify(users)}`);
    const bios = await Promise.all(['target', 'admin2', 'stranger'].map(async (who) => (await must('admin', 'GET', `/users/${ids[who]}`, 200)).bio));
    if (!isDeepStrictEqual(bios, ['bio by admin', 'bio by admin', ''])) failures.push(`bios [target, admin2, stranger]: ${JSON.stringify(bios)}`);
    const blk = await must('admin', 'GET', `/users/${ids.blk_target}`, 200);
    if (blk.state !== 'active') failures.push(`blk_target state ${blk.state}`);
    const gone = await call('admin', { method: 'GET', path: `/users/${ids.del_target}` });
    if (gone.status !== 404) failures.push(`deleted user: ${gone.status} ${gone.text.slice(0, 200)}`);
    const spare = await call('target', { method: 'GET', path: '/user' });
    if (spare.status !== 200) failures.push(`target's own token after the revocation of the spare: ${spare.status}`);
    const targetTokens = ((await must('admin', 'GET', `/personal_access_tokens?user_id=${ids.target}&per_page=100`, 200)) as { id: number; name: string; revoked: boolean }[])
      .map((t) => `${t.name} ${t.revoked}`).sort();
    if (!isDeepStrictEqual(targetTokens, ['by-admin false', 'matrix false', 'rotatable false', 'rotatable true', 'spare true'])) failures.push(`target's tokens: ${JSON.stringify(targetTokens)}`);
    for (const v of VISIBILITIES) {
      await must('owner', 'GET', `/groups/${groups[v]}?with_projects=false`, 200);
      const listed = (await must('admin', 'GET', `/groups?search=aci-new-${v}&per_page=100&all_available=true`, 200)) as { path: string; marked_for_deletion_on: string | null }[];
      // GitLab 18: an allowed DELETE marks the group (renamed `<path>-deletion_scheduled-<id>`); the others stay as made.
      const newGroups = listed.filter((g) => !g.marked_for_deletion_on).map((g) => g.path).sort();
      const marked = listed.filter((g) => g.marked_for_deletion_on).map((g) => g.path.replace(/-deletion_scheduled-\d+$/, '')).sort();
      const made = CALLERS.filter((c) => allowedIn(NEW_GROUP, v, c));
      const want = made.filter((c) => !allowedIn(ADMIN_GROUP, v, c)).map((c) => `aci-new-${v}-${c}`).sort();
      const wantMarked = made.filter((c) => allowedIn(ADMIN_GROUP, v, c)).map((c) => `aci-new-${v}-${c}`).sort();
      if (!isDeepStrictEqual(newGroups, want)) failures.push(`groups made × ${v} after the deletions: ${JSON.stringify(newGroups)}, expected ${JSON.stringify(want)}`);
      if (!isDeepStrictEqual(marked, wantMarked)) failures.push(`groups marked for deletion × ${v}: ${JSON.stringify(marked)}, expected ${JSON.stringify(wantMarked)}`);
    }
    expect(failures).toEqual([]);
  });

  it('the whole matrix: 0 mismatches', () => {
    expect(cellsRun).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
  });
});
