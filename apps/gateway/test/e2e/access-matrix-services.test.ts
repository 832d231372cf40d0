/*
 * Project-scoped routes of the route table (apps/gateway/src/routes/index.ts, `apiRoutes`: every /projects route) and
 * the matrix that covers each. #8 = project-access-matrix.test.ts (12 callers × 3 visibilities × personal/group; the
 * blocked and expired callers of each of its routes are here, REFUSED_ONLY); #13 = this file (10 callers × 3
 * visibilities).
 *
 *   GET    /projects (search, membership, min_access_level)       #8 (listing)    #13 blocked/expired
 *   POST   /projects                                             neither: no project yet (any signed-in user;
 *                                                                 projects-walking-skeleton, project-listings)
 *   POST   /projects/user/:user_id                               #13 (administrators; the row is the new project's visibility)
 *   GET    /projects/:id                                         #8              #13 blocked/expired
 *   PUT    /projects/:id  (description, name, visibility)        #8              #13 blocked/expired
 *   DELETE /projects/:id                                         #8              #13 blocked/expired
 *   POST   /projects/:id/restore                                 #13
 *   PUT    /projects/:id/transfer                                #8              #13 blocked/expired
 *   POST   /projects/:id/archive, /unarchive                     #8              #13 blocked/expired
 *   POST   /projects/:id/star                                    #8              #13 blocked/expired
 *   POST   /projects/:id/unstar                                  #13
 *   GET    /projects/:id/starrers                                #8              #13 blocked/expired
 *   GET    /projects/:id/events                                  #8              #13 blocked/expired
 *   GET    /projects/:id/users, /groups                          #8              #13 blocked/expired
 *   POST   /projects/:id/share                                   #8              #13 blocked/expired
 *   DELETE /projects/:id/share/:group_id                         #13
 *   POST   /projects/:id/import_project_members/:project_id      #13
 *   POST   /projects/:id/fork                                    #8              #13 blocked/expired
 *   POST   /projects/:id/fork/:forked_from_id                    #13
 *   DELETE /projects/:id/fork  (not a fork: 304; a fork: 204)    #13
 *   GET    /projects/:id/forks                                   #8              #13 blocked/expired
 *   GET    /projects/:id/members, /members/all                   #8              #13 blocked/expired
 *   GET    /projects/:id/members/:user_id, /members/all/:user_id #13
 *   POST   /projects/:id/members                                 #8              #13 blocked/expired
 *   PUT    /projects/:id/members/:user_id                        #13
 *   DELETE /projects/:id/members/:user_id                        #13
 *   GET    /projects/:id/access_requests                         #8              #13 blocked/expired
 *   POST   /projects/:id/access_requests                         #8              #13 blocked/expired
 *   PUT    /projects/:id/access_requests/:user_id/approve        #13
 *   DELETE /projects/:id/access_requests/:user_id                #13
 *   GET    /projects/:id/custom_attributes                       #13
 *   GET, PUT, DELETE /projects/:id/custom_attributes/:key        #13
 *   GET    /projects/:id/snapshot, /storage, /languages          #13
 *   POST   /projects/:id/housekeeping, /repository_size          #13
 *   GET    /projects/:id/avatar                                  #13
 *   POST   /projects/:id/uploads, GET /projects/:id/uploads      #13
 *   GET, DELETE /projects/:id/uploads/:upload_id                 #13
 *   GET, DELETE /projects/:id/uploads/:secret/:filename          #13
 *   GET, POST, PUT /projects/:id/mirror/pull                     #13
 *   GET, POST /projects/:id/hooks; GET, PUT, DELETE /projects/:id/hooks/:hook_id                   #13
 *   POST   /projects/:id/hooks/:hook_id/test/:trigger (push_events)                                #13
 *   GET    /projects/:id/hooks/:hook_id/events; POST …/events/:hook_log_id/resend                 #13
 *   GET, POST, PUT, DELETE /projects/:id/push_rule                                                 #13
 *
 * Not project-scoped (no project `:id`), in neither matrix: GET /users/:user_id/projects and
 * /users/:user_id/starred_projects (a user's listings).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';
import { matrixHttp, type Answer, type Req } from './access-matrix/matrix-http';

/**
 * Issue #13: the access matrix over the project-scoped endpoints the issue #8 matrix (project-access-matrix.test.ts)
 * does not cover — project hooks (and test, events, resend), push rule, uploads (and by id), pull mirror, repository
 * administration (housekeeping, repository_size, storage, snapshot, languages), avatar, custom attributes, a member
 * (read, edit, remove), access request approval/denial, restore, unstar, linking and unlinking a fork, unsharing,
 * uploads by secret and filename, importing members, creating a project for a user (admin) — × ten callers ×
 * three visibilities, with 0 mismatches; plus every endpoint of the issue #8 matrix for the two callers it lacks.
 * Hidden projects are 404, never 403, except where GitLab itself answers 403 (custom attributes: see its table).
 *
 * The callers: anonymous, a signed-in non-member, Guest, Reporter, Developer and Maintainer of the projects' group,
 * its Owner, the administrator, a BLOCKED user (a Maintainer of the group, blocked with POST /users/:id/block after
 * their token was made) and an EXPIRED token (a Maintainer's token whose `expires_at` was set to yesterday with SQL).
 *
 * The expected answers are written out by hand from GitLab's rules, one table per rule (a row per visibility, a column
 * per caller), never computed from the production code; a wrong rule turns its cells red, named
 * "endpoint × visibility × caller", and every mismatching cell is listed at once.
 *
 * The two new callers (GitLab `lib/api/api_guard.rb`, `lib/gitlab/auth/auth_finders.rb`):
 * - an expired token: `validate_and_save_access_token!` raises `ExpiredError` while the caller is found, before any
 *   route logic, and `oauth2_bearer_token_error_handler` answers Rack::OAuth2's 401 `invalid_token` with
 *   "Token is expired. You can either do re-authorization or token refresh." (body `{"error","error_description"}`,
 *   the same in the `WWW-Authenticate` header) — on every route, public ones included;
 * - a blocked user's token is found (nothing in AccessTokenValidationService looks at the user), then
 *   `find_current_user!` refuses the user: `forbidden!(api_access_denied_message(user))`, i.e. 403
 *   `{"message":"403 Forbidden - Your account has been blocked."}` (`lib/gitlab/auth/user_access_denied_reason.rb`).
 */

const CALLERS = ['anon', 'stranger', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'blocked', 'expired'] as const;
type Caller = (typeof CALLERS)[number];
const VISIBILITIES = ['public', 'internal', 'private'] as const;
type Visibility = (typeof VISIBILITIES)[number];

/** 'ok': allowed (the endpoint's own check of status, body and headers); otherwise a denial with its exact body. */
type Outcome = 'ok' | 401 | 403 | 404 | '404rec' | 'blocked' | 'expired' | '-';
const EXPIRED_DESCRIPTION = 'Token is expired. You can either do re-authorization or token refresh.';
/** '-': a cell of another matrix, not run here. */
const DENIALS: Record<Exclude<Outcome, 'ok' | '-'>, { status: number; body: unknown }> = {
  /** `authenticate!` / `authenticate_non_get!` / `authenticated_as_admin!` without a user (lib/api/helpers.rb). */
  401: { status: 401, body: { message: '401 Unauthorized' } },
  /** `authorize!` / `authorize_admin_project` / `authenticated_as_admin!` refusing a signed-in user. */
  403: { status: 403, body: { message: '403 Forbidden' } },
  /** `find_project!` (`user_project`): hidden is indistinguishable from missing. */
  404: { status: 404, body: { message: '404 Project Not Found' } },
  /** `source.requesters.find_by!(user_id:)` → ActiveRecord::RecordNotFound (lib/api/access_requests.rb, lib/api/api.rb). */
  '404rec': { status: 404, body: { message: '404 Not found' } },
  /** `find_current_user!`: `forbidden!(Gitlab::Auth::UserAccessDeniedReason#rejection_message)`. */
  blocked: { status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } },
  /** `Gitlab::Auth::ExpiredError` → Rack::OAuth2 Bearer::Unauthorized(:invalid_token, …). */
  expired: { status: 401, body: { error: 'invalid_token', error_description: EXPIRED_DESCRIPTION } },
};

type Table = Record<Visibility, readonly Outcome[]>;
/** The callers who cannot see the project: their cells must never be 403 (checked when the file loads). */
const HIDDEN_FROM: Record<Visibility, readonly Caller[]> = { public: [], internal: ['anon'], private: ['anon', 'stranger'] };
/**
 * A row per visibility, the columns in CALLERS' order (checked when the file loads), and no 403 for a caller who cannot
 * see the project unless `hidden403` says why GitLab answers so (a check that runs before the project is looked up).
 */
function table(t: Table, hidden403?: string): Table {
  for (const v of VISIBILITIES) {
    if (t[v].length !== CALLERS.length) throw new Error(`table row ${v} has ${t[v].length} cells`);
    for (const c of HIDDEN_FROM[v]) if (t[v][CALLERS.indexOf(c)] === 403 && !hidden403) throw new Error(`table row ${v}: 403 for ${c}, who cannot see the project`);
  }
  return t;
}

// ─── Expectations ────────────────────────────────────────────────────────────────────────────────────────────────
// Columns:          anon  stranger guest reporter developer maint owner admin blocked    expired

/**
 * `authenticate!` then `authorize_admin_project` (`admin_project`: Maintainer): lib/api/project_hooks.rb,
 * ee/lib/api/project_push_rule.rb, ee/lib/api/project_mirror.rb (`authenticate_with_webhook_token!`), and
 * `post ':id/housekeeping'` / `post ':id/repository_size'` in lib/api/projects.rb (`authenticate_non_get!`), and
 * `post ":id/import_project_members/:project_id"` there (`authorize! :admin_project, user_project` before the source
 * project is looked up; the sources here are ones every allowed caller reads and administers members of).
 */
const ADMIN_PROJECT = table({
  public:   [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * `authenticated_as_admin!` before the project is looked up: GET /projects/:id/storage (lib/api/projects.rb) and
 * GET /projects/:id/snapshot (lib/api/project_snapshots.rb, `authenticated_with_can_read_all_resources!`); and
 * POST /projects/user/:user_id (lib/api/projects.rb: `authenticated_as_admin!`, then `User.find_by` → 404 'User'),
 * where the row is the `visibility` of the project the administrator creates for a user.
 */
const ADMIN_ONLY = table({
  public:   [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  private:  [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
}, '`authenticated_as_admin!` runs before the project is looked up');

/**
 * GET /projects/:id/custom_attributes (lib/api/custom_attributes_endpoints.rb): `find_resource` → `find_project`, which
 * looks the project up WITHOUT a visibility check (lib/api/helpers.rb; only `find_project!` checks `read_project`), so
 * `not_found!` is for missing projects only; then `authorize! :read_custom_attribute` (administrators): 403 for every
 * other caller, anonymous ones and callers who cannot see the project included. GitLab's one exception to "hidden is
 * 404": kept, as GitLab answers.
 */
const CUSTOM_ATTRIBUTES = table({
  public:   [403,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  internal: [403,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  private:  [403,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
}, '`find_project` does not check visibility');

/**
 * PUT/DELETE /projects/:id/custom_attributes/:key and GET …/:key (lib/api/custom_attributes_endpoints.rb): as above,
 * and `authenticate_non_get!` (lib/api/projects.rb) first for PUT/DELETE: anonymous 401.
 */
const CUSTOM_ATTRIBUTE_WRITE = table({
  public:   [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
  private:  [401,  403,     403,  403,     403,      403,  403,  'ok', 'blocked', 'expired'],
}, '`find_project` does not check visibility');

/**
 * DELETE /projects/:id/uploads/:upload_id and DELETE /projects/:id/uploads/:secret/:filename
 * (lib/api/markdown_uploads.rb): `authenticate_non_get!`, `user_project`, `authorize! :destroy_upload` (project_policy.rb:
 * under `can?(:maintainer_access)`).
 */
const UPLOAD_DELETE = table({
  public:   [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * GET /projects/:id/members/:user_id and /members/all/:user_id (lib/api/members.rb): `authenticate!`, `find_source`,
 * `authorize_read_source_member!` (`read_project_member`: whoever reads the project), then the member.
 */
const MEMBER_READ = table({
  public:   [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * PUT and DELETE /projects/:id/members/:user_id of a user who is not a member (lib/api/members.rb): `find_source`, then
 * `source_members(source).find_by!(user_id:)` BEFORE `authorize_update_source_member!` / Members::DestroyService: 404
 * "Not found" for every reader. (Of a member: `update_project_member` / `destroy_project_member`, Maintainer, the
 * ADMIN_PROJECT table.)
 */
const MEMBER_CHANGE_OF_NON_MEMBER = table({
  public:   [401,  '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
  internal: [401,  '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
  private:  [401,  404,      '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
});

/**
 * Every endpoint of the issue #8 matrix (project-access-matrix.test.ts), for the two callers it does not have (the other
 * callers are that matrix's, '-' here): the token is refused before any route logic, whatever the route or visibility.
 */
const REFUSED_ONLY = table({
  public:   ['-',  '-',     '-',  '-',     '-',      '-',  '-',  '-',  'blocked', 'expired'],
  internal: ['-',  '-',     '-',  '-',     '-',      '-',  '-',  '-',  'blocked', 'expired'],
  private:  ['-',  '-',     '-',  '-',     '-',      '-',  '-',  '-',  'blocked', 'expired'],
});

/** GET /projects/:id/languages (lib/api/projects.rb): `user_project` only (`read_project`), anonymous allowed. */
const READ = table({
  public:   ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [404,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [404,  404,     'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/** POST /projects/:id/uploads (lib/api/markdown_uploads.rb): `authenticate_non_get!`, then `user_project` (a reader). */
const UPLOAD = table({
  public:   [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * GET /projects/:id/uploads (lib/api/markdown_uploads.rb): no `authenticate!` on GET, `user_project`, then
 * `authorize! :admin_upload` (Maintainer): an anonymous caller of a public project is 403.
 */
const UPLOADS_LIST = table({
  public:   [403,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [404,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [404,  404,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * POST /projects/:id/unstar (lib/api/projects.rb): `authenticate_non_get!`, `user_project` (a reader); not starred →
 * `not_modified!` (304).
 */
const UNSTAR = table({
  public:   [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * DELETE /projects/:id/fork (lib/api/projects.rb): `authenticate_non_get!`, `authorize! :remove_fork_project` (Owner);
 * a project that is not a fork → `not_modified!` (304).
 */
const UNLINK_FORK = table({
  public:   [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
});

/** POST /projects/:id/restore (lib/api/projects.rb): `authenticate_non_get!`, `authorize!(:remove_project)` (Owner). */
const RESTORE = table({
  public:   [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
});

/**
 * PUT /projects/:id/access_requests/:user_id/approve and DELETE /projects/:id/access_requests/:user_id
 * (lib/api/access_requests.rb): `authenticate!`, `find_source` (404 when hidden), `source.requesters.find_by!` (404
 * "Not found" for a user who has not requested access), then Members::ApproveAccessRequestService /
 * Members::DestroyService refuse below Maintainer (403). Public and internal projects have pending requesters; a private
 * project cannot be requested (`request_access` needs public_user_access), so every reader finds no requester there.
 */
const ACCESS_REQUEST_DECISION = table({
  public:   [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     '404rec', '404rec', '404rec', '404rec', '404rec', '404rec', 'blocked', 'expired'],
});

/**
 * GET /projects/:id/uploads/:secret/:filename (lib/api/markdown_uploads.rb): no `authenticate!` on GET, `user_project`,
 * then `authorize! :read_upload`. app/policies/project_policy.rb enables `read_upload` under `can?(:public_access)` (a
 * public project: anonymous callers too) and `can?(:guest_access)` (members, `public_user_access` on internal projects,
 * administrators through `owner_access`): whoever reads the project.
 */
const UPLOAD_READ_BY_SECRET = table({
  public:   ['ok', 'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  internal: [404,  'ok',    'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
  private:  [404,  404,     'ok', 'ok',    'ok',     'ok', 'ok', 'ok', 'blocked', 'expired'],
});

/**
 * POST /projects/:id/fork/:forked_from_id (lib/api/projects.rb): `authenticate_non_get!`, then
 * `authorize! :link_forked_project, user_project` (project_policy.rb: under `can?(:owner_access)`, Owner and
 * administrators), then the source: `find_project!(forked_from_id)` and `authorize! :fork_project` on it (the source
 * here is public: every signed-in caller may fork it).
 */
const LINK_FORK = table({
  public:   [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  internal: [401,  403,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
  private:  [401,  404,     403,  403,     403,      403,  'ok', 'ok', 'blocked', 'expired'],
});

// ─── The matrix runner ───────────────────────────────────────────────────────────────────────────────────────────

interface Fixture {
  visibility: Visibility;
  id: number;
  /** A hook the owner made in setup: the target of every refused hook call, left in place. */
  hookId: number;
  /** The log of the owner's test delivery to that hook (what the resend cells resend). */
  hookLogId: number;
}

interface Endpoint {
  name: string;
  table: Table;
  request: (f: Fixture, caller: Caller) => Req;
  /** Checks an allowed answer (status, body, headers): undefined when right, else what is wrong. */
  ok: (a: Answer, f: Fixture, caller: Caller) => string | undefined;
}

interface Cell {
  endpoint: Endpoint;
  fixture: Fixture;
  caller: Caller;
}

const CONCURRENCY = 8;
const cellName = (c: Cell) => `${c.endpoint.name} × ${c.fixture.visibility} × ${c.caller}`;
const expected = (c: Cell): Outcome => c.endpoint.table[c.fixture.visibility][CALLERS.indexOf(c.caller)]!;
const usernameOf = (c: Caller) => (c === 'admin' ? 'root' : `acs_${c}`);
const expectKey = (what: string, got: unknown, want: unknown) => (isDeepStrictEqual(got, want) ? undefined : `${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
const status = (a: Answer, want: number) => (a.status === want ? undefined : `expected ${want}, got ${a.status} ${a.text.slice(0, 300)}`);
/** The first failing check, or undefined. */
const all = (...checks: (() => string | undefined)[]) => {
  for (const check of checks) {
    const wrong = check();
    if (wrong) return wrong;
  }
  return undefined;
};
const exactly = (want: number, body: unknown) => (a: Answer) => all(() => status(a, want), () => expectKey('body', a.body, body));

describe('access matrix of hooks, push rules, uploads, mirrors, repository administration and more (issue #13)', () => {
  let stack: RunningStack;
  let pool: Pool;
  const tokens: Partial<Record<string, string>> = {};
  const ids: Record<string, number> = {};
  const fixtures: Fixture[] = [];
  /** Uploads the callers allowed to upload made, by `${projectId}/${caller}`. */
  const uploads: Record<string, number> = {};
  /** The same uploads' `url` (`/uploads/<secret>/<filename>`), by `${projectId}/${caller}`. */
  const uploadUrls: Record<string, string> = {};
  /** Users the allowed import cells import: the one direct member of each allowed caller's source project. */
  const importees = ['maintainer', 'owner', 'admin'].map((c) => `imp_${c}`);
  /** Hooks the allowed callers made, by `${projectId}/${caller}`. */
  const ownHooks: Record<string, number> = {};
  /** Users who request access: one approved and one denied per allowed caller, one left pending. */
  const requesters = ['maintainer', 'owner', 'admin'].flatMap((c) => [`req_approve_${c}`, `req_deny_${c}`]).concat('req_pending');
  let cellsRun = 0;
  const mismatches: string[] = [];
  /** The hooks' receiver on 127.0.0.1: answers 200 and keeps each delivery's X-Gitlab-Event and path. */
  let receiver: Server;
  let receiverUrl = '';
  const deliveries: string[] = [];

  const { call, must } = matrixHttp(() => stack.apiUrl, tokens);

  async function runCell(c: Cell): Promise<string | undefined> {
    const want = expected(c);
    const a = await call(c.caller === 'anon' ? null : c.caller, c.endpoint.request(c.fixture, c.caller));
    if (want === '-') throw new Error('a cell outside this matrix was run');
    if (want === 'ok') {
      const wrong = c.endpoint.ok(a, c.fixture, c.caller);
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

  /** Runs the tasks CONCURRENCY at a time; answers their results in order. */
  async function inChunks<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
    const results: T[] = [];
    for (let i = 0; i < tasks.length; i += CONCURRENCY) results.push(...(await Promise.all(tasks.slice(i, i + CONCURRENCY).map((t) => t()))));
    return results;
  }

  /** Runs cells CONCURRENCY at a time and records every failing cell. */
  async function runCells(cells: Cell[]): Promise<string[]> {
    const results = await inChunks(cells.map((c) => () => runCell(c).catch((err: unknown) => `${cellName(c)}: ${String(err)}`)));
    cellsRun += cells.length;
    const failed = results.filter((r): r is string => r !== undefined);
    mismatches.push(...failed);
    return failed;
  }

  const cellsOf = (endpoints: Endpoint[], callers: readonly Caller[] = CALLERS): Cell[] =>
    endpoints.flatMap((endpoint) => fixtures.flatMap((fixture) => callers.map((caller) => ({ endpoint, fixture, caller }))))
      .filter((c) => expected(c) !== '-');

  /**
   * Cells whose allowed answers change state the next allowed caller sees (a push rule exists, housekeeping is
   * queued): every refusal first, all at once, then each allowed caller in CALLERS' order through the endpoints in
   * order (the three projects side by side).
   */
  async function runInTurn(endpoints: Endpoint[]): Promise<string[]> {
    const cells = cellsOf(endpoints);
    const failed = await runCells(cells.filter((c) => expected(c) !== 'ok'));
    for (const caller of CALLERS) {
      for (const endpoint of endpoints) failed.push(...(await runCells(cellsOf([endpoint], [caller]).filter((c) => expected(c) === 'ok'))));
    }
    return failed;
  }

  const allowedIn = (t: Table, f: Fixture, c: Caller) => t[f.visibility][CALLERS.indexOf(c)] === 'ok';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      deliveries.push(`${String(req.headers['x-gitlab-event'])} ${req.url}`);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack({ name: 'e2e_acl_services', env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    tokens.admin = stack.rootToken;
    ids.admin = (await must('admin', 'GET', '/user', 200)).id;

    // Callers, and the users who request access (one approved and one denied per allowed caller, one left pending).
    // Direct Reporters of every project: one every caller reads and edits (and refused callers try to remove), and one
    // each allowed caller removes.
    const directMembers = ['direct', 'del_maintainer', 'del_owner', 'del_admin'];
    const people = [...CALLERS.filter((c) => c !== 'anon' && c !== 'admin'), ...requesters, ...directMembers, ...importees];
    await Promise.all(people.map(async (who) => {
      const username = requesters.includes(who) || directMembers.includes(who) || importees.includes(who) ? `acs_${who}` : usernameOf(who as Caller);
      const user = await must('admin', 'POST', '/users', 201, { username, name: username, email: `${username}@example.com`, password: `${username}-password-1` });
      ids[who] = user.id;
      tokens[who] = (await must('admin', 'POST', `/users/${user.id}/personal_access_tokens`, 201, { name: 'matrix', scopes: ['api'] })).token;
    }));

    // The owner's public group with a member at each role; the blocked user and the expired token's owner are Maintainers.
    ids.group = (await must('owner', 'POST', '/groups', 201, { name: 'ACS Group', path: 'acs-group', visibility: 'public' })).id;
    await Promise.all(([['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40], ['blocked', 40], ['expired', 40]] as const).map(([who, level]) =>
      must('owner', 'POST', `/groups/${ids.group}/members`, 201, { user_id: ids[who], access_level: level })));

    // The source the allowed POST /fork/:forked_from_id cells link to: a public project of the administrator's, which
    // every signed-in caller may fork. The sources of the import cells: a private project of the group per allowed
    // caller (Maintainer or above there too), each with one direct Reporter, `imp_<caller>`.
    ids.forkSource = (await must('admin', 'POST', '/projects', 201, { name: 'acs-fork-source', path: 'acs-fork-source', visibility: 'public' })).id;
    for (const who of importees) {
      ids[`src_${who}`] = (await must('owner', 'POST', '/projects', 201, { name: `acs-src-${who}`, path: `acs-src-${who}`, visibility: 'private', namespace_id: ids.group })).id;
      await must('owner', 'POST', `/projects/${ids[`src_${who}`]}/members`, 201, { user_id: ids[who], access_level: 20 });
    }

    for (const visibility of VISIBILITIES) {
      const project = await must('owner', 'POST', '/projects', 201, { name: `acs-${visibility}`, path: `acs-${visibility}`, visibility, namespace_id: ids.group });
      const hook = await must('owner', 'POST', `/projects/${project.id}/hooks`, 201, { url: `${receiverUrl}/fixture-${visibility}` });
      await must('owner', 'POST', `/projects/${project.id}/hooks/${hook.id}/test/push_events`, 201);
      let logs: { id: number }[] = [];
      for (let i = 0; i < 50 && logs.length === 0; i++) {
        logs = await must('owner', 'GET', `/projects/${project.id}/hooks/${hook.id}/events`, 200);
        if (logs.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      if (logs.length !== 1) throw new Error(`setup: expected the test delivery's log, got ${JSON.stringify(logs)}`);
      fixtures.push({ visibility, id: project.id, hookId: hook.id, hookLogId: logs[0]!.id });
      await Promise.all(directMembers.map((who) => must('owner', 'POST', `/projects/${project.id}/members`, 201, { user_id: ids[who], access_level: 20 })));
      // Requests for access (public and internal projects only: a private one cannot be requested).
      if (visibility !== 'private') await Promise.all(requesters.map((who) => must(who, 'POST', `/projects/${project.id}/access_requests`, 201)));
    }

    // The blocked Maintainer's token worked before the block (so the 403 below is the block, not a bad token) …
    await must('blocked', 'GET', `/projects/${fixtures[2]!.id}/hooks`, 200);
    await must('admin', 'POST', `/users/${ids.blocked}/block`, 201);
    // … and the other Maintainer's token expired yesterday (never used before, so no cache holds it as usable).
    const expiredRows = await pool.query(`UPDATE ${stack.schemas.identity}.personal_access_tokens SET expires_at = current_date - 1 WHERE user_id = $1`, [ids.expired]);
    if (expiredRows.rowCount !== 1) throw new Error(`expected to expire one token, expired ${expiredRows.rowCount}`);
  }, 180_000);

  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`access matrix: ${cellsRun} cells, ${mismatches.length} mismatches`);
    await pool?.end();
    await stack?.stop();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  });

  // ─── Endpoints ───

  const get = (suffix: string) => (f: Fixture): Req => ({ method: 'GET', path: `/projects/${f.id}${suffix}` });
  const isArray = (a: Answer) => all(() => status(a, 200), () => (Array.isArray(a.body) ? undefined : `expected an array, got ${a.text.slice(0, 200)}`));
  const hookOf = (f: Fixture, c: Caller) => (allowedIn(ADMIN_PROJECT, f, c) ? ownHooks[`${f.id}/${c}`] : f.hookId);
  const hookUrl = (f: Fixture, c: Caller, what: string) => `${receiverUrl}/${what}-${f.visibility}-${c}`;
  const NOT_MIRRORED = exactly(400, { message: 'The project is not mirrored' });

  const readEndpoints: Endpoint[] = [
    {
      name: 'GET /projects/:id/hooks', table: ADMIN_PROJECT, request: get('/hooks'),
      ok: (a, f) => all(() => status(a, 200), () => expectKey('hook ids', (a.body as { id: number }[]).map((h) => h.id), [f.hookId])),
    },
    {
      name: 'GET /projects/:id/hooks/:hook_id', table: ADMIN_PROJECT, request: (f) => ({ method: 'GET', path: `/projects/${f.id}/hooks/${f.hookId}` }),
      ok: (a, f) => all(() => status(a, 200), () => expectKey('[id, project_id, url]', [(a.body as any)?.id, (a.body as any)?.project_id, (a.body as any)?.url], [f.hookId, f.id, `${receiverUrl}/fixture-${f.visibility}`])),
    },
    { name: 'GET /projects/:id/hooks/:hook_id/events', table: ADMIN_PROJECT, request: (f) => ({ method: 'GET', path: `/projects/${f.id}/hooks/${f.hookId}/events` }), ok: isArray },
    { name: 'GET /projects/:id/push_rule', table: ADMIN_PROJECT, request: get('/push_rule'), ok: exactly(200, null) },
    { name: 'GET /projects/:id/mirror/pull', table: ADMIN_PROJECT, request: get('/mirror/pull'), ok: NOT_MIRRORED },
    { name: 'GET /projects/:id/uploads', table: UPLOADS_LIST, request: get('/uploads'), ok: isArray },
    { name: 'GET /projects/:id/languages', table: READ, request: get('/languages'), ok: exactly(200, {}) },
    // lib/api/project_avatar.rb: `user_project` (a reader), then `not_found!('Avatar')` without one.
    { name: 'GET /projects/:id/avatar', table: READ, request: get('/avatar'), ok: exactly(404, { message: '404 Avatar Not Found' }) },
    { name: 'GET /projects/:id/custom_attributes', table: CUSTOM_ATTRIBUTES, request: get('/custom_attributes'), ok: exactly(200, []) },
    {
      name: 'GET /projects/:id/storage', table: ADMIN_ONLY, request: get('/storage'),
      ok: (a, f) => all(() => status(a, 200), () => expectKey('[project_id, repository_storage]', [(a.body as any)?.project_id, (a.body as any)?.repository_storage], [f.id, 'default'])),
    },
    {
      name: 'GET /projects/:id/snapshot', table: ADMIN_ONLY, request: get('/snapshot'),
      ok: (a) => all(() => status(a, 200), () => expectKey('[Content-Type, Content-Disposition]', [a.headers.get('content-type'), a.headers.get('content-disposition')], ['application/x-tar', 'attachment; filename="snapshot.tar"'])),
    },
  ];

  const HOOK_CREATE: Endpoint = {
    name: 'POST /projects/:id/hooks', table: ADMIN_PROJECT,
    request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/hooks`, json: { url: hookUrl(f, c, 'created') } }),
    ok: (a, f, c) => {
      const body = a.body as { id?: number; project_id?: number; url?: string };
      if (a.status === 201 && body.id) ownHooks[`${f.id}/${c}`] = body.id;
      return all(() => status(a, 201), () => expectKey('[project_id, url]', [body.project_id, body.url], [f.id, hookUrl(f, c, 'created')]));
    },
  };

  const hookEndpoints: Endpoint[] = [
    {
      name: 'PUT /projects/:id/hooks/:hook_id', table: ADMIN_PROJECT,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}/hooks/${hookOf(f, c)}`, json: { url: hookUrl(f, c, 'edited') } }),
      ok: (a, f, c) => all(() => status(a, 200), () => expectKey('[id, url]', [(a.body as any)?.id, (a.body as any)?.url], [hookOf(f, c), hookUrl(f, c, 'edited')])),
    },
    {
      // The receiver answers 200: `created!` (lib/api/hooks/test.rb); the rate limit (5 a minute) is not reached.
      name: 'POST /projects/:id/hooks/:hook_id/test/push_events', table: ADMIN_PROJECT,
      request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/hooks/${hookOf(f, c)}/test/push_events` }),
      ok: exactly(201, { message: '201 Created' }),
    },
    {
      // lib/api/hooks/resend_hook.rb (under the same `authorize_admin_project`): the receiver's status, 201.
      name: 'POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend', table: ADMIN_PROJECT,
      request: (f) => ({ method: 'POST', path: `/projects/${f.id}/hooks/${f.hookId}/events/${f.hookLogId}/resend` }),
      ok: exactly(201, { response_status: 200 }),
    },
  ];

  const HOOK_DELETE: Endpoint = {
    name: 'DELETE /projects/:id/hooks/:hook_id', table: ADMIN_PROJECT,
    request: (f, c) => ({ method: 'DELETE', path: `/projects/${f.id}/hooks/${hookOf(f, c)}` }),
    // Idempotent (spec 4.7): the hook's record when it existed (a second DELETE answers 204 with no body).
    ok: (a, f, c) => all(() => status(a, 200), () => expectKey('hook id', (a.body as { id?: number } | undefined)?.id, hookOf(f, c))),
  };

  const pushRuleEndpoints: Endpoint[] = [
    {
      name: 'POST /projects/:id/push_rule', table: ADMIN_PROJECT,
      request: (f) => ({ method: 'POST', path: `/projects/${f.id}/push_rule`, json: { deny_delete_tag: true } }),
      ok: (a, f) => all(() => status(a, 201), () => expectKey('[project_id, deny_delete_tag]', [(a.body as any)?.project_id, (a.body as any)?.deny_delete_tag], [f.id, true])),
    },
    {
      name: 'PUT /projects/:id/push_rule', table: ADMIN_PROJECT,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}/push_rule`, json: { commit_message_regex: `by-${c}` } }),
      ok: (a, f, c) => all(() => status(a, 200), () => expectKey('[project_id, commit_message_regex]', [(a.body as any)?.project_id, (a.body as any)?.commit_message_regex], [f.id, `by-${c}`])),
    },
    {
      name: 'DELETE /projects/:id/push_rule', table: ADMIN_PROJECT, request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}/push_rule` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  const HOUSEKEEPING_TAKEN = 'Somebody already triggered housekeeping for this resource in the past 1440 minutes';
  const repositoryEndpoints: Endpoint[] = [
    {
      // The first allowed caller queues it (201, the job id); while it is queued or running the lease is taken (409).
      name: 'POST /projects/:id/housekeeping', table: ADMIN_PROJECT, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/housekeeping` }),
      ok: (a) => (a.status === 409 ? expectKey('body', a.body, { message: HOUSEKEEPING_TAKEN }) : all(() => status(a, 201), () => (typeof a.body === 'number' || typeof a.body === 'string' ? undefined : `expected a job id, got ${a.text}`))),
    },
    { name: 'POST /projects/:id/repository_size', table: ADMIN_PROJECT, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/repository_size` }), ok: exactly(201, true) },
    { name: 'POST /projects/:id/mirror/pull', table: ADMIN_PROJECT, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/mirror/pull` }), ok: NOT_MIRRORED },
    // Settings with no URL to attach them to: the model's error, nothing saved.
    {
      name: 'PUT /projects/:id/mirror/pull', table: ADMIN_PROJECT,
      request: (f) => ({ method: 'PUT', path: `/projects/${f.id}/mirror/pull`, json: { mirror_trigger_builds: true } }),
      ok: exactly(400, { message: { url: ['is missing'] } }),
    },
  ];

  const UPLOAD_ENDPOINT: Endpoint = {
    name: 'POST /projects/:id/uploads', table: UPLOAD,
    request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/uploads`, file: { name: `acs-${c}.txt`, content: `from ${c}`, type: 'text/plain' } }),
    ok: (a, f, c) => {
      const body = a.body as { id?: number; alt?: string; url?: string; markdown?: string };
      if (a.status === 201 && body.id) uploads[`${f.id}/${c}`] = body.id;
      if (a.status === 201 && body.url) uploadUrls[`${f.id}/${c}`] = body.url;
      return all(
        () => status(a, 201),
        () => expectKey('alt', body.alt, `acs-${c}.txt`),
        () => (new RegExp(`^/uploads/[0-9a-f]{32}/acs-${c}\\.txt$`).test(body.url ?? '') ? undefined : `url ${JSON.stringify(body.url)}`),
        () => expectKey('markdown', body.markdown, `[acs-${c}.txt](${body.url})`),
      );
    },
  };

  const notModified = (a: Answer) => all(() => status(a, 304), () => expectKey('body', a.text, ''));
  const lifecycleEndpoints: Endpoint[] = [
    { name: 'POST /projects/:id/unstar', table: UNSTAR, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/unstar` }), ok: notModified },
    { name: 'DELETE /projects/:id/fork', table: UNLINK_FORK, request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}/fork` }), ok: notModified },
    {
      // `authorize! :admin_project`, then the link: the project's own group is not a share → `not_found!('Group Link')`.
      name: 'DELETE /projects/:id/share/:group_id', table: ADMIN_PROJECT, request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}/share/${ids.group}` }),
      ok: exactly(404, { message: '404 Group Link Not Found' }),
    },
  ];

  const RESTORE_ENDPOINT: Endpoint = {
    // Projects::RestoreService on a project that is not marked for deletion: `render_api_error!(result[:message], 400)`.
    name: 'POST /projects/:id/restore', table: RESTORE, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/restore` }),
    ok: exactly(400, { message: 'Project has not been marked for deletion' }),
  };

  /** An allowed caller's own upload, or the Guest's (every refused caller's target, left in place). */
  const uploadOf = (t: Table, f: Fixture, c: Caller) => uploads[`${f.id}/${allowedIn(t, f, c) ? c : 'guest'}`];
  const uploadByIdEndpoints: Endpoint[] = [
    {
      name: 'GET /projects/:id/uploads/:upload_id', table: UPLOADS_LIST, request: (f, c) => ({ method: 'GET', path: `/projects/${f.id}/uploads/${uploadOf(UPLOADS_LIST, f, c)}` }),
      ok: (a, _f, c) => all(() => status(a, 200), () => expectKey('content', a.text, `from ${c}`)),
    },
    {
      name: 'DELETE /projects/:id/uploads/:upload_id', table: UPLOAD_DELETE, request: (f, c) => ({ method: 'DELETE', path: `/projects/${f.id}/uploads/${uploadOf(UPLOAD_DELETE, f, c)}` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  const customAttributeEndpoints: Endpoint[] = [
    {
      name: 'PUT /projects/:id/custom_attributes/:key', table: CUSTOM_ATTRIBUTE_WRITE,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}/custom_attributes/acs`, json: { value: `by-${c}` } }),
      ok: (a, _f, c) => exactly(200, { key: 'acs', value: `by-${c}` })(a),
    },
    {
      name: 'GET /projects/:id/custom_attributes/:key', table: CUSTOM_ATTRIBUTES, request: get('/custom_attributes/acs'),
      ok: (a, _f, c) => exactly(200, { key: 'acs', value: `by-${c}` })(a),
    },
    {
      name: 'DELETE /projects/:id/custom_attributes/:key', table: CUSTOM_ATTRIBUTE_WRITE, request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}/custom_attributes/acs` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  const memberReadEndpoints: Endpoint[] = [
    {
      name: 'GET /projects/:id/members/:user_id', table: MEMBER_READ, request: (f) => ({ method: 'GET', path: `/projects/${f.id}/members/${ids.direct}` }),
      ok: (a) => all(() => status(a, 200), () => expectKey('[id, access_level]', [(a.body as any)?.id, (a.body as any)?.access_level], [ids.direct, 20])),
    },
    {
      name: 'GET /projects/:id/members/all/:user_id', table: MEMBER_READ, request: (f) => ({ method: 'GET', path: `/projects/${f.id}/members/all/${ids.guest}` }),
      ok: (a) => all(() => status(a, 200), () => expectKey('[id, access_level]', [(a.body as any)?.id, (a.body as any)?.access_level], [ids.guest, 10])),
    },
  ];
  const noMember = (name: string, method: string): Endpoint => ({
    name, table: MEMBER_CHANGE_OF_NON_MEMBER, ok: () => 'no cell of this endpoint is allowed',
    request: (f) => ({ method, path: `/projects/${f.id}/members/${ids.req_pending}`, json: method === 'PUT' ? { access_level: 20 } : undefined }),
  });
  const memberChangeEndpoints: Endpoint[] = [
    {
      name: 'PUT /projects/:id/members/:user_id', table: ADMIN_PROJECT,
      request: (f) => ({ method: 'PUT', path: `/projects/${f.id}/members/${ids.direct}`, json: { access_level: 20 } }),
      ok: (a) => all(() => status(a, 200), () => expectKey('[id, access_level]', [(a.body as any)?.id, (a.body as any)?.access_level], [ids.direct, 20])),
    },
    noMember('PUT /projects/:id/members/:user_id (not a member)', 'PUT'),
    noMember('DELETE /projects/:id/members/:user_id (not a member)', 'DELETE'),
  ];
  const MEMBER_DELETE: Endpoint = {
    name: 'DELETE /projects/:id/members/:user_id', table: ADMIN_PROJECT,
    request: (f, c) => ({ method: 'DELETE', path: `/projects/${f.id}/members/${ids[allowedIn(ADMIN_PROJECT, f, c) ? `del_${c}` : 'direct']}` }),
    ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
  };

  /** The issue #8 matrix's endpoints, for the blocked user and the expired token only. */
  const refusedOnly = (name: string, request: (f: Fixture) => Req): Endpoint => ({ name, table: REFUSED_ONLY, request, ok: () => 'no cell of this endpoint is allowed' });
  const on = (method: string, suffix: string, json?: Record<string, unknown>) => (f: Fixture): Req => ({ method, path: `/projects/${f.id}${suffix}`, json });
  const oldMatrixEndpoints: Endpoint[] = [
    ...['', '/users', '/groups', '/starrers', '/events', '/forks', '/members', '/members/all', '/access_requests'].map((suffix) => refusedOnly(`GET /projects/:id${suffix}`, on('GET', suffix))),
    refusedOnly('GET /projects?search=', (f) => ({ method: 'GET', path: `/projects?search=acs-${f.visibility}` })),
    refusedOnly('POST /projects/:id/star', on('POST', '/star')),
    refusedOnly('POST /projects/:id/members', (f) => on('POST', '/members', { user_id: ids.req_pending, access_level: 30 })(f)),
    refusedOnly('POST /projects/:id/share', (f) => on('POST', '/share', { group_id: ids.group, group_access: 10 })(f)),
    refusedOnly('POST /projects/:id/fork', on('POST', '/fork', { name: 'acs-fork', path: 'acs-fork' })),
    refusedOnly('PUT /projects/:id/transfer', on('PUT', '/transfer', { namespace: 'acs-group' })),
    refusedOnly('POST /projects/:id/access_requests', on('POST', '/access_requests')),
    refusedOnly('PUT /projects/:id {description}', on('PUT', '', { description: 'edited by a refused token' })),
    refusedOnly('PUT /projects/:id {name}', on('PUT', '', { name: 'renamed by a refused token' })),
    refusedOnly('PUT /projects/:id {visibility}', (f) => on('PUT', '', { visibility: f.visibility === 'private' ? 'public' : 'private' })(f)),
    refusedOnly('POST /projects/:id/archive', on('POST', '/archive')),
    refusedOnly('POST /projects/:id/unarchive', on('POST', '/unarchive')),
    refusedOnly('DELETE /projects/:id', on('DELETE', '')),
  ];

  /** The requester an allowed caller decides on (their own), or the one left pending (on a private project: nobody's). */
  const requester = (what: 'approve' | 'deny', f: Fixture, c: Caller) => ids[allowedIn(ACCESS_REQUEST_DECISION, f, c) ? `req_${what}_${c}` : 'req_pending']!;
  const accessRequestEndpoints: Endpoint[] = [
    {
      name: 'PUT /projects/:id/access_requests/:user_id/approve', table: ACCESS_REQUEST_DECISION,
      request: (f, c) => ({ method: 'PUT', path: `/projects/${f.id}/access_requests/${requester('approve', f, c)}/approve`, json: { access_level: 30 } }),
      ok: (a, f, c) => all(() => status(a, 201), () => expectKey('[id, access_level]', [(a.body as any)?.id, (a.body as any)?.access_level], [requester('approve', f, c), 30])),
    },
    {
      name: 'DELETE /projects/:id/access_requests/:user_id', table: ACCESS_REQUEST_DECISION,
      request: (f, c) => ({ method: 'DELETE', path: `/projects/${f.id}/access_requests/${requester('deny', f, c)}` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  /** `present_disk_file!` (lib/api/helpers.rb): the bytes, as an attachment named after the file. */
  const uploadFile = (name: string, content: string) => (a: Answer) => all(
    () => status(a, 200),
    () => expectKey('body', a.text, content),
    () => expectKey('[Content-Type, Content-Disposition]', [a.headers.get('content-type'), a.headers.get('content-disposition')],
      ['application/octet-stream', `attachment; filename="${name}"; filename*=UTF-8''${name}`]),
  );
  /** The Guest's upload (every caller's read target, and every refused caller's delete target: it stays). */
  const guestUpload = (f: Fixture) => uploadUrls[`${f.id}/guest`]!;
  /** Uploads the allowed callers of the by-secret DELETE make for it, by `${projectId}/${caller}` (their `url`). */
  const secretDeletes: Record<string, string> = {};
  const uploadBySecretEndpoints: Endpoint[] = [
    {
      name: 'GET /projects/:id/uploads/:secret/:filename', table: UPLOAD_READ_BY_SECRET, request: (f) => ({ method: 'GET', path: `/projects/${f.id}${guestUpload(f)}` }),
      ok: uploadFile('acs-guest.txt', 'from guest'),
    },
    {
      name: 'DELETE /projects/:id/uploads/:secret/:filename', table: UPLOAD_DELETE,
      request: (f, c) => ({ method: 'DELETE', path: `/projects/${f.id}${allowedIn(UPLOAD_DELETE, f, c) ? secretDeletes[`${f.id}/${c}`] : guestUpload(f)}` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  /** Each allowed caller links the project to the public source, then unlinks it (Owner both), in turn. */
  const forkLinkEndpoints: Endpoint[] = [
    {
      name: 'POST /projects/:id/fork/:forked_from_id', table: LINK_FORK, request: (f) => ({ method: 'POST', path: `/projects/${f.id}/fork/${ids.forkSource}` }),
      ok: (a, f) => all(() => status(a, 201), () => expectKey('[id, forked_from_project.id]', [(a.body as any)?.id, (a.body as any)?.forked_from_project?.id], [f.id, ids.forkSource])),
    },
    {
      name: 'DELETE /projects/:id/fork (of a fork)', table: UNLINK_FORK, request: (f) => ({ method: 'DELETE', path: `/projects/${f.id}/fork` }),
      ok: (a) => all(() => status(a, 204), () => expectKey('body', a.text, '')),
    },
  ];

  /** An allowed caller imports from their own source project; refused callers name the Maintainer's. */
  const importSource = (f: Fixture, c: Caller) => ids[`src_imp_${allowedIn(ADMIN_PROJECT, f, c) ? c : 'maintainer'}`];
  const IMPORT_MEMBERS: Endpoint = {
    name: 'POST /projects/:id/import_project_members/:project_id', table: ADMIN_PROJECT,
    request: (f, c) => ({ method: 'POST', path: `/projects/${f.id}/import_project_members/${importSource(f, c)}` }),
    ok: exactly(200, { status: 'success' }),
  };

  /** The administrator creates a project of each visibility for `acs_direct`; nobody else may. */
  const CREATE_FOR_USER: Endpoint = {
    name: 'POST /projects/user/:user_id', table: ADMIN_ONLY,
    request: (f, c) => ({ method: 'POST', path: `/projects/user/${ids.direct}`, json: { name: `acs-for-user-${f.visibility}-${c}`, visibility: f.visibility } }),
    ok: (a, f, c) => all(() => status(a, 201), () => expectKey('[path_with_namespace, visibility, owner.id]',
      [(a.body as any)?.path_with_namespace, (a.body as any)?.visibility, (a.body as any)?.owner?.id], [`acs_direct/acs-for-user-${f.visibility}-${c}`, f.visibility, ids.direct])),
  };

  // ─── The matrix, phase by phase (later phases change state the earlier ones read) ───

  it('reads: hooks, a hook, its events, push rule, pull mirror, uploads, languages, avatar, custom attributes, storage, snapshot, a member', async () => {
    expect(await runCells(cellsOf([...readEndpoints, ...memberReadEndpoints]))).toEqual([]);
  });

  it('the issue #8 endpoints for the blocked user and the expired token: refused, nothing changed', async () => {
    const fields = (p: any) => [p.name, p.description, p.visibility, p.archived, p.star_count, p.forks_count];
    const before = await Promise.all(fixtures.map(async (f) => fields(await must('owner', 'GET', `/projects/${f.id}`, 200))));
    const failures = await runCells(cellsOf(oldMatrixEndpoints));
    for (const [i, f] of fixtures.entries()) {
      const after = fields(await must('owner', 'GET', `/projects/${f.id}`, 200));
      if (!isDeepStrictEqual(after, before[i])) failures.push(`project × ${f.visibility}: changed from ${JSON.stringify(before[i])} to ${JSON.stringify(after)}`);
      const members = ((await must('owner', 'GET', `/projects/${f.id}/members/all?per_page=100`, 200)) as { id: number }[]).map((m) => m.id);
      if (members.includes(ids.req_pending!)) failures.push(`members × ${f.visibility}: a refused token added a member`);
    }
    expect(failures).toEqual([]);
  });

  it('hooks: create, edit, test, delete (Maintainer); refused callers leave only the fixture hook', async () => {
    const failures = await runCells(cellsOf([HOOK_CREATE]));
    failures.push(...(await runCells(cellsOf(hookEndpoints))));
    failures.push(...(await runCells(cellsOf([HOOK_DELETE]))));
    // Side effects: every project has its fixture hook, unedited, and nothing else.
    for (const f of fixtures) {
      const hooks = (await must('owner', 'GET', `/projects/${f.id}/hooks`, 200)) as { id: number; url: string }[];
      const got = hooks.map((h) => [h.id, h.url]);
      if (!isDeepStrictEqual(got, [[f.hookId, `${receiverUrl}/fixture-${f.visibility}`]])) failures.push(`hooks × ${f.visibility}: left ${JSON.stringify(got)}`);
    }
    // Only the allowed test calls delivered, each to the caller's own (edited) hook; refused ones delivered nothing.
    // Setup's one test delivery per fixture hook, then each allowed caller's test (own hook) and resend (fixture hook).
    const want = fixtures.flatMap((f) => [
      `Push Hook /fixture-${f.visibility}`,
      ...CALLERS.filter((c) => allowedIn(ADMIN_PROJECT, f, c)).flatMap((c) => [`Push Hook /edited-${f.visibility}-${c}`, `Push Hook /fixture-${f.visibility}`]),
    ]).sort();
    if (!isDeepStrictEqual([...deliveries].sort(), want)) failures.push(`test deliveries: expected ${JSON.stringify(want)}, got ${JSON.stringify([...deliveries].sort())}`);
    expect(failures).toEqual([]);
  });

  it('push rule: create, edit, delete (Maintainer), in turn; none is left', async () => {
    const failures = await runInTurn(pushRuleEndpoints);
    for (const f of fixtures) {
      const rule = await must('owner', 'GET', `/projects/${f.id}/push_rule`, 200);
      if (rule !== null) failures.push(`push rule × ${f.visibility}: left ${JSON.stringify(rule)}`);
    }
    expect(failures).toEqual([]);
  });

  it('repository: housekeeping (in turn), repository_size, pull mirror update', async () => {
    expect(await runInTurn(repositoryEndpoints)).toEqual([]);
  });

  it('uploads: any signed-in reader; each allowed upload is listed after', async () => {
    const failures = await runCells(cellsOf([UPLOAD_ENDPOINT]));
    for (const f of fixtures) {
      const names = ((await must('owner', 'GET', `/projects/${f.id}/uploads?per_page=100`, 200)) as { filename: string }[]).map((u) => u.filename).sort();
      const want = CALLERS.filter((c) => allowedIn(UPLOAD, f, c)).map((c) => `acs-${c}.txt`).sort();
      if (!isDeepStrictEqual(names, want)) failures.push(`uploads × ${f.visibility}: expected ${JSON.stringify(want)}, got ${JSON.stringify(names)}`);
    }
    expect(failures).toEqual([]);
  });

  it('uploads by id: read and delete (Maintainer); refused callers leave the Guest\'s upload', async () => {
    const failures = await runCells(cellsOf(uploadByIdEndpoints.slice(0, 1)));
    failures.push(...(await runCells(cellsOf(uploadByIdEndpoints.slice(1)))));
    for (const f of fixtures) {
      const names = ((await must('owner', 'GET', `/projects/${f.id}/uploads?per_page=100`, 200)) as { filename: string }[]).map((u) => u.filename).sort();
      const want = CALLERS.filter((c) => allowedIn(UPLOAD, f, c) && !allowedIn(UPLOAD_DELETE, f, c)).map((c) => `acs-${c}.txt`).sort();
      if (!isDeepStrictEqual(names, want)) failures.push(`uploads after deletes × ${f.visibility}: expected ${JSON.stringify(want)}, got ${JSON.stringify(names)}`);
    }
    expect(failures).toEqual([]);
  });

  it('custom attributes: set, read, delete (administrators), in turn; none is left', async () => {
    const failures = await runInTurn(customAttributeEndpoints);
    for (const f of fixtures) {
      const left = await must('admin', 'GET', `/projects/${f.id}/custom_attributes`, 200);
      if (!isDeepStrictEqual(left, [])) failures.push(`custom attributes × ${f.visibility}: left ${JSON.stringify(left)}`);
    }
    expect(failures).toEqual([]);
  });

  it('members: edit (Maintainer), edit or remove a non-member (404 for every reader), remove (Maintainer)', async () => {
    const failures = await runCells(cellsOf(memberChangeEndpoints));
    failures.push(...(await runCells(cellsOf([MEMBER_DELETE]))));
    for (const f of fixtures) {
      const members = ((await must('owner', 'GET', `/projects/${f.id}/members?per_page=100`, 200)) as { id: number; access_level: number }[]);
      const of = (who: string) => members.find((m) => m.id === ids[who])?.access_level ?? null;
      const got = ['direct', 'del_maintainer', 'del_owner', 'del_admin', 'req_pending'].map(of);
      if (!isDeepStrictEqual(got, [20, null, null, null, null])) failures.push(`members × ${f.visibility}: [direct, del_maintainer, del_owner, del_admin, req_pending] levels ${JSON.stringify(got)}`);
    }
    expect(failures).toEqual([]);
  });

  it('restore (Owner), unstar (a reader), unlink a fork (Owner), unshare (Maintainer): nothing to do', async () => {
    expect(await runCells(cellsOf([RESTORE_ENDPOINT, ...lifecycleEndpoints]))).toEqual([]);
  });

  it('access requests: approve and deny (Maintainer); the pending request is left', async () => {
    const failures = await runCells(cellsOf(accessRequestEndpoints));
    for (const f of fixtures.filter((x) => x.visibility !== 'private')) {
      const left = ((await must('owner', 'GET', `/projects/${f.id}/access_requests`, 200)) as { id: number }[]).map((r) => r.id);
      if (!isDeepStrictEqual(left, [ids.req_pending])) failures.push(`access requests × ${f.visibility}: left ${JSON.stringify(left)}, expected only ${ids.req_pending}`);
      const requesterIds = requesters.map((who) => ids[who]);
      const members = ((await must('owner', 'GET', `/projects/${f.id}/members?per_page=100`, 200)) as { id: number; access_level: number }[])
        .filter((m) => requesterIds.includes(m.id)).map((m) => [m.id, m.access_level]).sort();
      const want = ['maintainer', 'owner', 'admin'].map((c) => [ids[`req_approve_${c}`], 30]).sort();
      if (!isDeepStrictEqual(members, want)) failures.push(`access requests × ${f.visibility}: members ${JSON.stringify(members)}, expected ${JSON.stringify(want)}`);
    }
    expect(failures).toEqual([]);
  });

  it('uploads by secret and filename: read (a reader, anonymous on a public project) and delete (Maintainer)', async () => {
    const failures = await runCells(cellsOf(uploadBySecretEndpoints.slice(0, 1)));
    // The allowed deleters' own uploads, made now (their earlier ones were deleted by id).
    for (const f of fixtures) {
      for (const c of CALLERS.filter((x) => allowedIn(UPLOAD_DELETE, f, x))) {
        const a = await call(c, { method: 'POST', path: `/projects/${f.id}/uploads`, file: { name: `acs-sdel-${c}.txt`, content: 'to delete', type: 'text/plain' } });
        if (a.status !== 201) throw new Error(`setup upload as ${c}: ${a.status} ${a.text}`);
        secretDeletes[`${f.id}/${c}`] = (a.body as { url: string }).url;
      }
    }
    failures.push(...(await runCells(cellsOf(uploadBySecretEndpoints.slice(1)))));
    for (const f of fixtures) {
      // Each deleted upload is gone; the refused callers' target, the Guest's, is still there and still served.
      const names = ((await must('owner', 'GET', `/projects/${f.id}/uploads?per_page=100`, 200)) as { filename: string }[]).map((u) => u.filename).sort();
      const want = CALLERS.filter((c) => allowedIn(UPLOAD, f, c) && !allowedIn(UPLOAD_DELETE, f, c)).map((c) => `acs-${c}.txt`).sort();
      if (!isDeepStrictEqual(names, want)) failures.push(`uploads after deletes by secret × ${f.visibility}: expected ${JSON.stringify(want)}, got ${JSON.stringify(names)}`);
      const guest = await call('owner', { method: 'GET', path: `/projects/${f.id}${guestUpload(f)}` });
      if (guest.status !== 200 || guest.text !== 'from guest') failures.push(`the Guest's upload × ${f.visibility}: ${guest.status} ${guest.text.slice(0, 200)}`);
      for (const [key, url] of Object.entries(secretDeletes).filter(([k]) => k.startsWith(`${f.id}/`))) {
        const gone = await call('owner', { method: 'GET', path: `/projects/${f.id}${url}` });
        if (gone.status !== 404) failures.push(`upload ${key} after its DELETE: ${gone.status} ${gone.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('fork relation: link to a public source, then unlink (Owner), in turn; no fork is left', async () => {
    const failures = await runInTurn(forkLinkEndpoints);
    for (const f of fixtures) {
      const project = await must('owner', 'GET', `/projects/${f.id}`, 200);
      if (project.forked_from_project !== undefined) failures.push(`fork × ${f.visibility}: still forked from ${JSON.stringify(project.forked_from_project)}`);
    }
    const forks = ((await must('admin', 'GET', `/projects/${ids.forkSource}/forks`, 200)) as { id: number }[]).map((p) => p.id);
    if (!isDeepStrictEqual(forks, [])) failures.push(`the source's forks: ${JSON.stringify(forks)}`);
    expect(failures).toEqual([]);
  });

  it('import members (Maintainer): each allowed import adds its source\'s member; refused ones add nobody', async () => {
    const directIds = async (id: number) => ((await must('owner', 'GET', `/projects/${id}/members?per_page=100`, 200)) as { id: number }[]).map((m) => m.id);
    const before = await Promise.all(fixtures.map((f) => directIds(f.id)));
    const sources = Object.fromEntries(await Promise.all(importees.map(async (who) => [who, await directIds(ids[`src_${who}`]!)] as const)));
    const failures = await runCells(cellsOf([IMPORT_MEMBERS]));
    for (const [i, f] of fixtures.entries()) {
      const imported = CALLERS.filter((c) => allowedIn(ADMIN_PROJECT, f, c)).flatMap((c) => sources[`imp_${c}`]!);
      const want = [...new Set([...before[i]!, ...imported])].sort((x, y) => x - y);
      const got = (await directIds(f.id)).sort((x, y) => x - y);
      if (!isDeepStrictEqual(got, want)) failures.push(`members after imports × ${f.visibility}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      const members = (await must('owner', 'GET', `/projects/${f.id}/members?per_page=100`, 200)) as { id: number; access_level: number }[];
      const levels = importees.map((who) => members.find((m) => m.id === ids[who])?.access_level ?? null);
      if (!isDeepStrictEqual(levels, [20, 20, 20])) failures.push(`imported members × ${f.visibility}: [${importees.join(', ')}] levels ${JSON.stringify(levels)}`);
    }
    expect(failures).toEqual([]);
  });

  it('create a project for a user (administrators): only the administrator\'s three are made', async () => {
    const failures = await runCells(cellsOf([CREATE_FOR_USER]));
    const made = ((await must('admin', 'GET', `/users/${ids.direct}/projects?per_page=100`, 200)) as { path: string; visibility: string }[])
      .map((p) => `${p.path} ${p.visibility}`).sort();
    const want = VISIBILITIES.map((v) => `acs-for-user-${v}-admin ${v}`).sort();
    if (!isDeepStrictEqual(made, want)) failures.push(`projects of acs_direct: expected ${JSON.stringify(want)}, got ${JSON.stringify(made)}`);
    expect(failures).toEqual([]);
  });

  it('the whole matrix: 0 mismatches', () => {
    expect(cellsRun).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
  });
});
