import { isDeepStrictEqual } from 'node:util';
import { startStack, type RunningStack } from '@glp/testing';

/**
 * Issue #8: the access matrix of the Projects API over HTTP. Twelve callers (anonymous, a non-member, an external
 * user, Guest, Reporter through the group and through the project, Developer, Maintainer through the group and through
 * the project, Owner, administrator, and a Reporter only through a share of the project with a group) × three
 * visibilities × two namespaces (a personal project and a group project) × every endpoint below.
 *
 * The expected answers are written out as tables (one per endpoint, a row per visibility, a column per caller): they
 * are GitLab's (reference sections 1.2 and 3; `app/policies/project_policy.rb`, `lib/api/projects.rb`,
 * `lib/api/members.rb`, `lib/api/access_requests.rb`, `app/finders/projects_finder.rb`), never computed from the
 * production rules, so a wrong rule turns the cell it breaks red, named "endpoint × visibility/namespace × caller".
 *
 * How each caller gets their role:
 * - personal project (namespace of `owner`): `owner` owns the namespace; every other role is a project membership;
 * - group project (group `acm-group`, owned by `owner`): guest, reporter, developer and maintainer are members of the
 *   group; reporterDirect and maintainerDirect are members of the project only;
 * - both: `sharee` is a Developer of the private group `acm-share`, with which every project is shared at Reporter
 *   (group_access 20), so their level is min(30, 20) = Reporter.
 */

const CALLERS = [
  'anon', 'stranger', 'external', 'guest', 'reporter', 'reporterDirect', 'developer', 'maintainer', 'maintainerDirect', 'owner', 'admin', 'sharee',
] as const;
type Caller = (typeof CALLERS)[number];
const VISIBILITIES = ['public', 'internal', 'private'] as const;
type Visibility = (typeof VISIBILITIES)[number];
const KINDS = ['personal', 'group'] as const;
type Kind = (typeof KINDS)[number];

/** 'ok': allowed (the endpoint's success status and key fields); otherwise the denial, asserted with its exact body. */
type Outcome = 'ok' | 401 | 403 | 404 | '404nf' | 'limit';
const DENIALS: Record<Exclude<Outcome, 'ok'>, { status: number; body: unknown }> = {
  /** `authenticate_non_get!` / `authenticate!` (lib/api/helpers.rb). */
  401: { status: 401, body: { message: '401 Unauthorized' } },
  /** `authorize!` on a project the caller can read. */
  403: { status: 403, body: { message: '403 Forbidden' } },
  /** `find_project!`: hidden is indistinguishable from missing. */
  404: { status: 404, body: { message: '404 Project Not Found' } },
  /** `post ':id/fork'`: `not_found! unless can?(current_user, :fork_project, user_project)`. */
  '404nf': { status: 404, body: { message: '404 Not Found' } },
  /**
   * An external user's fork: `User#ensure_user_rights_and_limits` gives external users `projects_limit` 0, so
   * `Projects::CreateService` stops at `check_personal_projects_limit` (app/models/project.rb) and the fork API answers
   * `conflict!(result.message)` with the full messages (lib/api/projects.rb, app/services/projects/fork_service.rb).
   */
  limit: { status: 409, body: { message: ['Limit reached Personal project creation is not allowed. Please contact your administrator with questions'] } },
};

type Table<T> = Record<Visibility, readonly T[]>;
/** A row per visibility, the columns in CALLERS' order (checked when the file loads). */
function table<T>(t: Table<T>): Table<T> {
  for (const v of VISIBILITIES) if (t[v].length !== CALLERS.length) throw new Error(`table row ${v} has ${t[v].length} cells`);
  return t;
}

// ─── Expectations ────────────────────────────────────────────────────────────────────────────────────────────────
// Columns:            anon   stranger external guest reporter repDirect developer maint  maintDirect owner admin sharee

/** GET /projects/:id, /users, /groups, /starrers, /events, /forks: `read_project`, anonymous allowed (public routes). */
const READ = table<Outcome>({
  public:   ['ok',  'ok',    'ok',    'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  internal: [404,   'ok',    404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  private:  [404,   404,     404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
});

/** GET /projects/:id/members and /members/all: `authenticate!` (lib/api/members.rb), then `read_project_member`. */
const MEMBERS_READ = table<Outcome>({
  public:   [401,   'ok',    'ok',    'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  internal: [401,   'ok',    404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  private:  [401,   404,     404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
});

/** GET /projects/:id/access_requests: `authenticate!`, then `admin_member_access_request` (Maintainer). */
const ACCESS_REQUESTS_LIST = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
});

/** POST /projects/:id/star: any signed-in reader (`authenticate_non_get!`). */
const STAR = table<Outcome>({
  public:   [401,   'ok',    'ok',    'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  internal: [401,   'ok',    404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  private:  [401,   404,     404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
});

/** PUT /projects/:id with `description`: `admin_project` (Maintainer). */
const EDIT_DESCRIPTION = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
});

/** PUT /projects/:id with `name`: `admin_project` + `rename_project` (both Maintainer). */
const EDIT_NAME = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
});

/** PUT /projects/:id with `visibility` (its current value): `change_visibility_level` (Owner) whenever it is sent. */
const EDIT_VISIBILITY = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
});

/** POST /projects/:id/archive and /unarchive: `archive_project` (Owner). */
const ARCHIVE = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
});

/** POST /projects/:id/members: `authenticate!`, then `admin_project_member` (Maintainer). */
const ADD_MEMBER = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
});

/** POST /projects/:id/share: `admin_project` (Maintainer). */
const SHARE = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      'ok', 'ok',       'ok', 'ok', 403],
});

/**
 * POST /projects/:id/fork: `fork_project` = (public_user_access | reporter_access) & forking_allowed; a Guest of a
 * private project is refused with `not_found!`; an external user may fork a public project but has no project quota.
 */
const FORK = table<Outcome>({
  public:   [401,   'ok',    'limit', 'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  internal: [401,   'ok',    404,     'ok', 'ok',    'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
  private:  [401,   404,     404,     '404nf', 'ok', 'ok',     'ok',     'ok', 'ok',       'ok', 'ok', 'ok'],
});

/**
 * PUT /projects/:id/transfer to the namespace the project is already in: `change_namespace` (Owner) is checked first
 * (403), so only Owners and administrators reach TransferService's 400 "Project is already in this namespace.".
 */
const TRANSFER = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
});

/** DELETE /projects/:id: `remove_project` (Owner). Allowed callers delete a throwaway project of the same kind. */
const DELETE = table<Outcome>({
  public:   [401,   403,     403,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  internal: [401,   403,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
  private:  [401,   404,     404,     403,  403,     403,      403,      403,  403,        'ok', 'ok', 403],
});

/**
 * POST /projects/:id/access_requests: `request_access`, enabled by public_user_access (signed-in on public, non-external
 * on internal) and prevented for `owner | admin | guest (any project access) | group_member`; refused with 403.
 */
const REQUEST_ACCESS = table<Outcome>({
  public:   [401,   'ok',    'ok',    403,  403,     403,      403,      403,  403,        403,  403,  403],
  internal: [401,   'ok',    404,     403,  403,     403,      403,      403,  403,        403,  403,  403],
  private:  [401,   404,     404,     403,  403,     403,      403,      403,  403,        403,  403,  403],
});

/** Whether GET /projects lists the fixture for the caller (ProjectsFinder; anonymous callers get public projects). */
type Listed = 'in' | '-';
const LIST_ALL = table<Listed>({
  public:   ['in',  'in',    'in',    'in', 'in',    'in',     'in',     'in', 'in',       'in', 'in', 'in'],
  internal: ['-',   'in',    '-',     'in', 'in',    'in',     'in',     'in', 'in',       'in', 'in', 'in'],
  private:  ['-',   '-',     '-',     'in', 'in',    'in',     'in',     'in', 'in',       'in', 'in', 'in'],
});

/**
 * `membership=true` (`non_public`): `current_user.authorized_projects` (group, project and share access; an
 * administrator is not a member); an anonymous caller gets `Project.none` (`collection_without_user`).
 */
const LIST_MEMBERSHIP = table<Listed>({
  public:   ['-',   '-',     '-',     'in', 'in',    'in',     'in',     'in', 'in',       'in', '-',  'in'],
  internal: ['-',   '-',     '-',     'in', 'in',    'in',     'in',     'in', 'in',       'in', '-',  'in'],
  private:  ['-',   '-',     '-',     'in', 'in',    'in',     'in',     'in', 'in',       'in', '-',  'in'],
});

/** `min_access_level=30`: `current_user.authorized_projects(30)`; anonymous `Project.none`. */
const LIST_MIN_DEVELOPER = table<Listed>({
  public:   ['-',   '-',     '-',     '-',  '-',     '-',      'in',     'in', 'in',       'in', '-',  '-'],
  internal: ['-',   '-',     '-',     '-',  '-',     '-',      'in',     'in', 'in',       'in', '-',  '-'],
  private:  ['-',   '-',     '-',     '-',  '-',     '-',      'in',     'in', 'in',       'in', '-',  '-'],
});

/**
 * GET /projects/:id `permissions` (Entities::ProjectWithAccess) per namespace kind and caller, whatever the visibility:
 * [project_access.access_level, group_access.access_level], null when absent. `project_access` is the caller's direct
 * project membership (a personal project's owner is added as an Owner member by Projects::CreateService
 * #setup_authorizations); `group_access` their membership of the project's group (none for personal projects, nor for a
 * share). Anonymous callers get Entities::ProjectDetails, without `permissions`.
 */
type Levels = readonly [number | null, number | null];
const PERMISSIONS: Record<Kind, Record<Exclude<Caller, 'anon'>, Levels>> = {
  personal: {
    stranger: [null, null], external: [null, null], guest: [10, null], reporter: [20, null], reporterDirect: [20, null], developer: [30, null],
    maintainer: [40, null], maintainerDirect: [40, null], owner: [50, null], admin: [null, null], sharee: [null, null],
  },
  group: {
    stranger: [null, null], external: [null, null], guest: [null, 10], reporter: [null, 20], reporterDirect: [20, null], developer: [null, 30],
    maintainer: [null, 40], maintainerDirect: [40, null], owner: [null, 50], admin: [null, null], sharee: [null, null],
  },
};

// ─── The matrix runner ───────────────────────────────────────────────────────────────────────────────────────────

interface Fixture {
  visibility: Visibility;
  kind: Kind;
  id: number;
  name: string;
  /** The namespace's full path (the owner's username, or the group's path). */
  namespace: string;
}

interface Request {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

interface Endpoint {
  name: string;
  table: Table<Outcome>;
  request: (f: Fixture, caller: Caller) => Request;
  okStatus: number;
  /** Checks an allowed answer's key fields: undefined when right, else what is wrong. */
  check: (body: any, f: Fixture, caller: Caller) => string | undefined;
}

interface Cell {
  endpoint: Endpoint;
  fixture: Fixture;
  caller: Caller;
}

const CONCURRENCY = 16;
const fixtureKey = (f: Pick<Fixture, 'visibility' | 'kind'>) => `${f.visibility}/${f.kind}`;
const cellName = (c: Cell) => `${c.endpoint.name} × ${fixtureKey(c.fixture)} × ${c.caller}`;
const usernameOf = (c: Caller) => (c === 'admin' ? 'root' : `acm_${c.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)}`);
const expectKey = (what: string, got: unknown, want: unknown) => (isDeepStrictEqual(got, want) ? undefined : `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
const idsOf = (body: unknown): number[] | undefined => (Array.isArray(body) ? body.map((x: { id: number }) => x.id) : undefined);

describe('access matrix of the Projects API (issue #8)', () => {
  let stack: RunningStack;
  const tokens: Partial<Record<string, string>> = {};
  const ids: Record<string, number> = {};
  const fixtures: Fixture[] = [];
  /** Throwaway projects for the allowed DELETE cells, by `${visibility}/${kind}/${caller}`. */
  const throwaway: Record<string, Fixture> = {};
  let cellsRun = 0;
  let matrixMs = 0;

  const call = (as: string | null, method: string, path: string, body?: Record<string, unknown>) => {
    const headers = new Headers();
    const token = as === null ? undefined : tokens[as];
    if (as !== null && !token) throw new Error(`no token for ${as}`);
    if (token) headers.set('PRIVATE-TOKEN', token);
    if (body) headers.set('Content-Type', 'application/json');
    return fetch(`${stack.apiUrl}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  };
  const callAs = (caller: Caller, method: string, path: string, body?: Record<string, unknown>) => call(caller === 'anon' ? null : caller, method, path, body);
  /** Setup requests: must succeed with `status`. */
  const must = async (as: string, method: string, path: string, status: number, body?: Record<string, unknown>) => {
    const res = await call(as, method, path, body);
    const text = await res.text();
    if (res.status !== status) throw new Error(`setup ${method} ${path} as ${as}: expected ${status}, got ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  async function runCell(c: Cell): Promise<string | undefined> {
    const expected = c.endpoint.table[c.fixture.visibility][CALLERS.indexOf(c.caller)]!;
    const req = c.endpoint.request(c.fixture, c.caller);
    const res = await callAs(c.caller, req.method, req.path, req.body);
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    if (expected === 'ok') {
      if (res.status !== c.endpoint.okStatus) return `${cellName(c)}: expected ${c.endpoint.okStatus}, got ${res.status} ${text.slice(0, 300)}`;
      const wrong = c.endpoint.check(body, c.fixture, c.caller);
      return wrong && `${cellName(c)}: ${wrong}`;
    }
    const denial = DENIALS[expected];
    if (res.status !== denial.status || !isDeepStrictEqual(body, denial.body)) {
      return `${cellName(c)}: expected ${denial.status} ${JSON.stringify(denial.body)}, got ${res.status} ${text.slice(0, 300)}`;
    }
    return undefined;
  }

  /** Runs the tasks CONCURRENCY at a time, in order; answers their results. */
  async function inChunks<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
    const results: T[] = [];
    for (let i = 0; i < tasks.length; i += CONCURRENCY) results.push(...(await Promise.all(tasks.slice(i, i + CONCURRENCY).map((t) => t()))));
    return results;
  }

  /** Runs cells CONCURRENCY at a time; answers every failing cell's description. */
  async function runCells(cells: Cell[]): Promise<string[]> {
    const started = Date.now();
    const results = await inChunks(cells.map((c) => () => runCell(c).catch((err: unknown) => `${cellName(c)}: ${String(err)}`)));
    cellsRun += cells.length;
    matrixMs += Date.now() - started;
    return results.filter((r): r is string => r !== undefined);
  }

  const cellsOf = (endpoints: Endpoint[], on: Fixture[] = fixtures, callers: readonly Caller[] = CALLERS): Cell[] =>
    endpoints.flatMap((endpoint) => on.flatMap((fixture) => callers.map((caller) => ({ endpoint, fixture, caller }))));

  const allowed = (t: Table<Outcome>, f: Fixture, c: Caller) => t[f.visibility][CALLERS.indexOf(c)] === 'ok';

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_access_matrix' });
    tokens.admin = stack.rootToken;
    ids.admin = (await must('admin', 'GET', '/user', 200)).id;

    // Callers, and the users the allowed POST /members cells add (one per allowed caller, so none collides).
    const memberTargets = ['tgt_maintainer', 'tgt_maintainer_direct', 'tgt_owner', 'tgt_admin', 'tgt_denied'];
    const people = [...CALLERS.filter((c) => c !== 'anon' && c !== 'admin'), ...memberTargets];
    await Promise.all(people.map(async (who) => {
      const username = memberTargets.includes(who) ? who : usernameOf(who as Caller);
      const user = await must('admin', 'POST', '/users', 201, {
        username, name: username, email: `${username}@example.com`, password: `${username}-password-1`, external: who === 'external',
      });
      ids[who] = user.id;
      if (!memberTargets.includes(who)) tokens[who] = (await must('admin', 'POST', `/users/${user.id}/personal_access_tokens`, 201, { name: 'matrix', scopes: ['api'] })).token;
    }));

    // The owner's public group with members at each role, and the private group the projects are shared with.
    ids.group = (await must('owner', 'POST', '/groups', 201, { name: 'ACM Group', path: 'acm-group', visibility: 'public' })).id;
    ids.shareGroup = (await must('owner', 'POST', '/groups', 201, { name: 'ACM Share', path: 'acm-share', visibility: 'private' })).id;
    await Promise.all([
      ...([['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40]] as const).map(([who, level]) =>
        must('owner', 'POST', `/groups/${ids.group}/members`, 201, { user_id: ids[who], access_level: level })),
      must('owner', 'POST', `/groups/${ids.shareGroup}/members`, 201, { user_id: ids.sharee, access_level: 30 }),
    ]);
    // Groups the allowed POST /share cells share with (each caller their own, at Guest: no caller gains access by it);
    // denied callers name a public group.
    for (const who of ['maintainer', 'maintainerDirect', 'owner', 'admin'] as const) {
      ids[`st_${who}`] = (await must(who, 'POST', '/groups', 201, { name: `st-${usernameOf(who)}`, path: `st-${usernameOf(who).replace(/_/g, '-')}`, visibility: 'private' })).id;
    }
    ids.st_public = (await must('admin', 'POST', '/groups', 201, { name: 'st-public', path: 'st-public', visibility: 'public' })).id;

    const createProject = async (name: string, visibility: Visibility, kind: Kind): Promise<Fixture> => {
      const project = await must('owner', 'POST', '/projects', 201, { name, path: name, visibility, ...(kind === 'group' ? { namespace_id: ids.group } : {}) });
      return { visibility, kind, id: project.id, name, namespace: kind === 'group' ? 'acm-group' : usernameOf('owner') };
    };
    for (const visibility of VISIBILITIES) {
      for (const kind of KINDS) {
        const f = await createProject(`acm-${visibility}-${kind}`, visibility, kind);
        fixtures.push(f);
        const direct: [Caller, number][] = kind === 'personal'
          ? [['guest', 10], ['reporter', 20], ['reporterDirect', 20], ['developer', 30], ['maintainer', 40], ['maintainerDirect', 40]]
          : [['reporterDirect', 20], ['maintainerDirect', 40]];
        await Promise.all([
          ...direct.map(([who, level]) => must('owner', 'POST', `/projects/${f.id}/members`, 201, { user_id: ids[who], access_level: level })),
          must('owner', 'POST', `/projects/${f.id}/share`, 201, { group_id: ids.shareGroup, group_access: 20 }),
        ]);
        for (const who of ['owner', 'admin'] as const) {
          throwaway[`${fixtureKey(f)}/${who}`] = await createProject(`tmp-${visibility}-${kind}-${who}`, visibility, kind);
        }
      }
    }
  }, 180_000);

  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`access matrix: ${cellsRun} cells in ${matrixMs} ms (${CONCURRENCY} at a time)`);
    await stack?.stop();
  });

  // ─── Endpoints ───

  const get = (suffix: string) => (f: Fixture): Request => ({ method: 'GET', path: `/projects/${f.id}${suffix}` });
  const isList = (body: unknown) => (Array.isArray(body) ? undefined : `expected an array, got ${JSON.stringify(body)}`);
  const includes = (body: unknown, who: string[]) => {
    const got = idsOf(body);
    if (!got) return `expected an array, got ${JSON.stringify(body)}`;
    const missing = who.filter((w) => !got.includes(ids[w]!));
    return missing.length ? `expected ${missing.join(', ')} among ids ${JSON.stringify(got)}` : undefined;
  };

  const readEndpoints: Endpoint[] = [
    {
      name: 'GET /projects/:id', table: READ, request: get(''), okStatus: 200,
      check: (body, f, caller) => {
        const wrongId = expectKey('id', body?.id, f.id);
        if (wrongId) return wrongId;
        if (caller === 'anon') return 'permissions' in body ? `anonymous got permissions ${JSON.stringify(body.permissions)}` : undefined;
        const levels = [body.permissions?.project_access?.access_level ?? null, body.permissions?.group_access?.access_level ?? null];
        return expectKey('permissions [project_access, group_access]', levels, PERMISSIONS[f.kind][caller]);
      },
    },
    { name: 'GET /projects/:id/users', table: READ, request: get('/users'), okStatus: 200, check: (body) => includes(body, ['owner', 'maintainer', 'maintainerDirect']) },
    {
      name: 'GET /projects/:id/groups', table: READ, request: get('/groups'), okStatus: 200,
      check: (body, f) => expectKey('group ids', idsOf(body), f.kind === 'group' ? [ids.group] : []),
    },
    { name: 'GET /projects/:id/starrers', table: READ, request: get('/starrers'), okStatus: 200, check: isList },
    { name: 'GET /projects/:id/events', table: READ, request: get('/events'), okStatus: 200, check: isList },
    { name: 'GET /projects/:id/forks', table: READ, request: get('/forks'), okStatus: 200, check: isList },
    {
      name: 'GET /projects/:id/members', table: MEMBERS_READ, request: get('/members'), okStatus: 200,
      check: (body, f) => includes(body, f.kind === 'group' ? ['reporterDirect', 'maintainerDirect'] : ['guest', 'maintainer']),
    },
    { name: 'GET /projects/:id/members/all', table: MEMBERS_READ, request: get('/members/all'), okStatus: 200, check: (body) => includes(body, ['owner', 'guest', 'maintainer', 'maintainerDirect']) },
    { name: 'GET /projects/:id/access_requests', table: ACCESS_REQUESTS_LIST, request: get('/access_requests'), okStatus: 200, check: isList },
  ];

  const forkPath = (f: Fixture) => `fork-${f.visibility}-${f.kind}`;
  /** The user an allowed caller adds (their own, so no two cells add the same one), or one nobody adds. */
  const MEMBER_TARGETS: Partial<Record<Caller, string>> = { maintainer: 'tgt_maintainer', maintainerDirect: 'tgt_maintainer_direct', owner: 'tgt_owner', admin: 'tgt_admin' };
  const memberTarget = (f: Fixture, c: Caller) => ids[allowed(ADD_MEMBER, f, c) ? MEMBER_TARGETS[c]! : 'tgt_denied']!;
  const shareTarget = (f: Fixture, c: Caller) => ids[allowed(SHARE, f, c) ? `st_${c}` : 'st_public']!;

  const ADD_MEMBER_ENDPOINT: Endpoint = {
    name: 'POST /projects/:id/members', table: ADD_MEMBER, okStatus: 201,
    request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/members`, body: { user_id: memberTarget(f, c), access_level: 30 } }),
    check: (body, f, c) => expectKey('member [id, access_level]', [body?.id, body?.access_level], [memberTarget(f, c), 30]),
  };
  const SHARE_ENDPOINT: Endpoint = {
    name: 'POST /projects/:id/share', table: SHARE, okStatus: 201,
    request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/share`, body: { group_id: shareTarget(f, c), group_access: 10 } }),
    check: (body, f, c) => expectKey('link [project_id, group_id, group_access]', [body?.project_id, body?.group_id, body?.group_access], [f.id, shareTarget(f, c), 10]),
  };

  const writeEndpoints: Endpoint[] = [
    {
      name: 'POST /projects/:id/star', table: STAR, okStatus: 201,
      request: (f) => ({ method: 'POST', path: `/projects/${f.id}/star` }),
      check: (body, f) => expectKey('id', body?.id, f.id),
    },
    ADD_MEMBER_ENDPOINT,
    SHARE_ENDPOINT,
    {
      name: 'POST /projects/:id/fork', table: FORK, okStatus: 201,
      request: (f) => ({ method: 'POST', path: `/projects/${f.id}/fork`, body: { name: forkPath(f), path: forkPath(f) } }),
      check: (body, f, c) => expectKey('fork [path_with_namespace, forked_from_project.id]', [body?.path_with_namespace, body?.forked_from_project?.id], [`${usernameOf(c)}/${forkPath(f)}`, f.id]),
    },
    {
      name: 'PUT /projects/:id/transfer', table: TRANSFER, okStatus: 400,
      request: (f) => ({ method: 'PUT', path: `/projects/${f.id}/transfer`, body: { namespace: f.namespace } }),
      check: (body) => expectKey('body', body, { message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}' }),
    },
    {
      name: 'POST /projects/:id/access_requests', table: REQUEST_ACCESS, okStatus: 201,
      request: (f) => ({ method: 'POST', path: `/projects/${f.id}/access_requests` }),
      check: (body, _f, c) => expectKey('requester id', body?.id, ids[c]),
    },
  ];

  const editEndpoints: Endpoint[] = [
    {
      name: 'PUT /projects/:id {description}', table: EDIT_DESCRIPTION, okStatus: 200,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}`, body: { description: `edited by ${c}` } }),
      check: (body, _f, c) => expectKey('description', body?.description, `edited by ${c}`),
    },
    {
      name: 'PUT /projects/:id {name}', table: EDIT_NAME, okStatus: 200,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}`, body: { name: `${f.name} ${c}` } }),
      check: (body, f, c) => expectKey('name', body?.name, `${f.name} ${c}`),
    },
    {
      name: 'PUT /projects/:id {visibility}', table: EDIT_VISIBILITY, okStatus: 200,
      request: (f) => ({ method: 'PUT', path: `/projects/${f.id}`, body: { visibility: f.visibility } }),
      check: (body, f) => expectKey('visibility', body?.visibility, f.visibility),
    },
  ];

  const archiveEndpoint = (archived: boolean): Endpoint => ({
    name: `POST /projects/:id/${archived ? 'archive' : 'unarchive'}`, table: ARCHIVE, okStatus: 201,
    request: (f) => ({ method: 'POST', path: `/projects/${f.id}/${archived ? 'archive' : 'unarchive'}` }),
    check: (body, f) => expectKey('[id, archived]', [body?.id, body?.archived], [f.id, archived]),
  });

  const DELETE_ENDPOINT: Endpoint = {
    name: 'DELETE /projects/:id', table: DELETE, okStatus: 202,
    request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}` }),
    check: (body) => expectKey('body', body, { message: '202 Accepted' }),
  };

  // ─── The matrix, phase by phase (later phases change state the earlier ones read) ───

  it('reads: GET /projects/:id (with permissions), /users, /groups, /starrers, /events, /forks, /members, /members/all, /access_requests', async () => {
    expect(await runCells(cellsOf(readEndpoints))).toEqual([]);
  });

  it('lists: GET /projects, with membership=true and with min_access_level=30', async () => {
    const started = Date.now();
    const queries: [string, Table<Listed>][] = [['', LIST_ALL], ['&membership=true', LIST_MEMBERSHIP], ['&min_access_level=30', LIST_MIN_DEVELOPER]];
    const failures: string[] = [];
    await inChunks(queries.flatMap(([query, expected]) => CALLERS.map((caller) => async () => {
      const name = `GET /projects?search=acm${query}`;
      const res = await callAs(caller, 'GET', `/projects?search=acm&per_page=100${query}`);
      const body: unknown = res.status === 200 ? await res.json() : await res.text();
      for (const f of fixtures) {
        const want = expected[f.visibility][CALLERS.indexOf(caller)];
        const got = res.status === 200 && (idsOf(body) ?? []).includes(f.id) ? 'in' : '-';
        if (got !== want) failures.push(`${name} × ${fixtureKey(f)} × ${caller}: expected ${want === 'in' ? 'listed' : 'not listed'}, got ${res.status} ${got === 'in' ? 'listed' : 'not listed'}`);
      }
    })));
    cellsRun += queries.length * CALLERS.length * fixtures.length;
    matrixMs += Date.now() - started;
    expect(failures.sort()).toEqual([]);
  });

  it('acts: star, add a member, share, fork, transfer (to where it is), request access', async () => {
    expect(await runCells(cellsOf(writeEndpoints))).toEqual([]);
  });

  it('edits: PUT /projects/:id with description, name (Maintainer) and visibility (Owner)', async () => {
    // One caller at a time: concurrent edits of one project by two callers could show each other's values.
    const failures: string[] = [];
    for (const caller of CALLERS) failures.push(...(await runCells(cellsOf(editEndpoints, fixtures, [caller]))));
    expect(failures).toEqual([]);
  });

  it('archives then unarchives (Owner)', async () => {
    const failures = [...(await runCells(cellsOf([archiveEndpoint(true)]))), ...(await runCells(cellsOf([archiveEndpoint(false)])))];
    expect(failures).toEqual([]);
  });

  it('deletes (Owner): refusals on the shared projects, successes on throwaway projects, which are marked for deletion after', async () => {
    const cells = cellsOf([DELETE_ENDPOINT]).map((c) => (!allowed(DELETE, c.fixture, c.caller) ? c : { ...c, fixture: throwaway[`${fixtureKey(c.fixture)}/${c.caller}`]! }));
    const failures = await runCells(cells);
    for (const c of cells.filter((x) => allowed(DELETE, x.fixture, x.caller))) {
      // GitLab 18 marks the project (restorable until the deletion_adjourned_period has passed).
      const res = await call('admin', 'GET', `/projects/${c.fixture.id}`);
      const marked = res.status === 200 ? ((await res.json()) as { marked_for_deletion_on?: string | null }).marked_for_deletion_on : undefined;
      if (!marked) failures.push(`${cellName(c)}: the project is not marked for deletion after DELETE (GET answers ${res.status}, marked_for_deletion_on ${marked})`);
    }
    // The refused callers left every shared project in place.
    for (const f of fixtures) if ((await call('admin', 'GET', `/projects/${f.id}`)).status !== 200) failures.push(`DELETE /projects/:id × ${fixtureKey(f)}: deleted by a refused caller`);
    expect(failures).toEqual([]);
  });
});
