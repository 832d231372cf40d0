import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiRoutes } from './index';

/**
 * Every param that ends up in a protobuf `int32` field is declared `p.int32()`, so that a value beyond ±2^31 is
 * Grape's 400 "<param> is invalid" instead of a failure inside protobuf encoding (a 500). Read from the .proto
 * files, so a new int32 field is checked as soon as a route maps a param of the same name to it.
 */

const PROTO = path.resolve(__dirname, '../../../../proto/gitlab');

/** message name → its int32 fields (top-level messages, snake_case names). */
function int32Fields(file: string): Map<string, string[]> {
  const text = readFileSync(path.join(PROTO, file), 'utf8');
  const out = new Map<string, string[]>();
  for (const m of text.matchAll(/^message (\w+) \{\n([\s\S]*?)^\}/gm)) {
    out.set(m[1]!, [...m[2]!.matchAll(/^\s*(?:optional |repeated )?(?:s|u)?(?:fixed)?int32 (\w+) =/gm)].map((f) => f[1]!));
  }
  return out;
}

const projects = int32Fields('projects/v1/projects.proto');
const identity = int32Fields('identity/v1/identity.proto');
const accessRequests = int32Fields('access_requests/v1/access_requests.proto');
const repoAdmin = int32Fields('repo_admin/v1/repo_admin.proto');
const hooks = int32Fields('hooks/v1/hooks.proto');
const pushRules = int32Fields('push_rules/v1/push_rules.proto');

/** The request messages each route's params are copied into. Every route with an integer param must be here. */
const ROUTE_MESSAGES: Record<string, string[][]> = {
  'POST /projects': [['projects', 'CreateProjectRequest'], ['projects', 'ProjectSettings']],
  'POST /projects/user/:user_id': [['projects', 'CreateProjectRequest'], ['projects', 'ProjectSettings']],
  'GET /projects': [['projects', 'ListProjectsRequest']],
  'GET /users/:user_id/projects': [['projects', 'ListProjectsRequest']],
  'GET /users/:user_id/starred_projects': [['projects', 'ListProjectsRequest']],
  'GET /projects/:id/forks': [['projects', 'ListProjectsRequest']],
  'POST /projects/:id/fork': [['projects', 'ForkProjectRequest']],
  'GET /projects/:id': [['projects', 'GetProjectRequest']],
  'POST /users': [['identity', 'CreateUserRequest']],
  'GET /users/:id': [['identity', 'GetUserRequest']],
  'POST /users/:user_id/personal_access_tokens': [['identity', 'CreatePersonalAccessTokenRequest']],
  'POST /groups': [['identity', 'CreateGroupRequest']],
  'GET /groups': [['identity', 'ListGroupsRequest']],
  'GET /groups/:id/subgroups': [['identity', 'ListGroupsRequest']],
  'GET /groups/:id/members': [['identity', 'ListGroupMembersRequest']],
  'GET /groups/:id/members/all': [['identity', 'ListGroupMembersRequest']],
  'GET /groups/:id/members/:user_id': [['identity', 'GetGroupMemberRequest']],
  'GET /groups/:id/members/all/:user_id': [['identity', 'GetGroupMemberRequest']],
  'POST /groups/:id/members': [['identity', 'AddGroupMemberRequest']],
  'PUT /groups/:id/members/:user_id': [['identity', 'UpdateGroupMemberRequest']],
  'DELETE /groups/:id/members/:user_id': [['identity', 'RemoveGroupMemberRequest']],
  'GET /namespaces': [['identity', 'ListNamespacesRequest']],
  'GET /projects/:id/members': [['projects', 'ListProjectMembersRequest']],
  'GET /projects/:id/members/all': [['projects', 'ListProjectMembersRequest']],
  'GET /projects/:id/members/:user_id': [['projects', 'GetProjectMemberRequest']],
  'GET /projects/:id/members/all/:user_id': [['projects', 'GetProjectMemberRequest']],
  'POST /projects/:id/members': [['projects', 'AddProjectMemberRequest']],
  'PUT /projects/:id/members/:user_id': [['projects', 'UpdateProjectMemberRequest']],
  'DELETE /projects/:id/members/:user_id': [['projects', 'RemoveProjectMemberRequest']],
  'PUT /projects/:id': [['projects', 'UpdateProjectRequest'], ['projects', 'ProjectSettings']],
  'GET /projects/:id/starrers': [['projects', 'ListStarrersRequest']],
  'GET /projects/:id/events': [['projects', 'ListProjectEventsRequest']],
  'POST /projects/:id/share': [['projects', 'ShareProjectRequest']],
  'DELETE /projects/:id/share/:group_id': [['projects', 'UnshareProjectRequest']],
  'GET /projects/:id/users': [['projects', 'ListProjectUsersRequest']],
  'GET /projects/:id/groups': [['projects', 'ListProjectGroupsRequest']],
  'GET /groups/:id/access_requests': [['accessRequests', 'ListAccessRequestsRequest']],
  'GET /projects/:id/access_requests': [['accessRequests', 'ListAccessRequestsRequest']],
  'PUT /groups/:id/access_requests/:user_id/approve': [['accessRequests', 'ApproveAccessRequestRequest']],
  'PUT /projects/:id/access_requests/:user_id/approve': [['accessRequests', 'ApproveAccessRequestRequest']],
  'DELETE /groups/:id/access_requests/:user_id': [['accessRequests', 'DenyAccessRequestRequest']],
  'DELETE /projects/:id/access_requests/:user_id': [['accessRequests', 'DenyAccessRequestRequest']],
  'GET /personal_access_tokens': [['identity', 'ListPersonalAccessTokensRequest']],
  'GET /users': [['identity', 'ListUsersRequest']],
  'PUT /users/:id': [['identity', 'UpdateUserRequest']],
  'DELETE /users/:id': [['identity', 'DeleteUserRequest']],
  'POST /users/:id/block': [['identity', 'BlockUserRequest']],
  'POST /users/:id/unblock': [['identity', 'UnblockUserRequest']],
  'GET /personal_access_tokens/:id': [['identity', 'GetPersonalAccessTokenRequest']],
  'DELETE /personal_access_tokens/:id': [['identity', 'RevokePersonalAccessTokenRequest']],
  'POST /personal_access_tokens/:id/rotate': [['identity', 'RotatePersonalAccessTokenRequest']],
  'GET /projects/:id/uploads': [['repoAdmin', 'ListUploadsRequest']],
  'GET /projects/:id/uploads/:upload_id': [['repoAdmin', 'DownloadUploadRequest']],
  'DELETE /projects/:id/uploads/:upload_id': [['repoAdmin', 'DeleteUploadRequest']],
  'GET /projects/:id/hooks': [['hooks', 'ListHooksRequest']],
  'GET /projects/:id/hooks/:hook_id': [['hooks', 'GetHookRequest']],
  'PUT /projects/:id/hooks/:hook_id': [['hooks', 'UpdateHookRequest']],
  'DELETE /projects/:id/hooks/:hook_id': [['hooks', 'DeleteHookRequest']],
  'POST /projects/:id/hooks/:hook_id/test/:trigger': [['hooks', 'TestHookRequest']],
  'GET /projects/:id/hooks/:hook_id/events': [['hooks', 'ListHookEventsRequest']],
  'POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend': [['hooks', 'ResendHookEventRequest']],
  'POST /projects/:id/push_rule': [['pushRules', 'PushRuleInput']],
  'PUT /projects/:id/push_rule': [['pushRules', 'PushRuleInput']],
  'PUT /application/settings': [['identity', 'ApplicationSettingsInput']],
};

describe('params stored in protobuf int32 fields are p.int32()', () => {
  const routes = apiRoutes('18.6.0', 'test');

  it('maps every route with an integer param to its request messages', () => {
    const withIntegers = routes
      .filter((r) => Object.values(r.params.fields).some((f) => [f.def.kind, f.def.items].some((k) => k === 'integer' || k === 'int32')))
      .map((r) => `${r.method} ${r.path}`);
    expect(withIntegers.filter((k) => !ROUTE_MESSAGES[k])).toEqual([]);
  });

  it('declares each such param int32', () => {
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      for (const [service, message] of ROUTE_MESSAGES[key] ?? []) {
        const fields = { projects, identity, accessRequests, repoAdmin, hooks, pushRules }[service as 'projects' | 'identity' | 'accessRequests' | 'repoAdmin' | 'hooks' | 'pushRules'].get(message!);
        if (!fields) throw new Error(`no message ${service}.${message} in the proto files`);
        for (const name of fields) {
          const param = route.params.fields[name];
          if (!param) continue;
          checked.push(`${key} ${name}`);
          if (param.def.kind !== 'int32' && param.def.items !== 'int32') wrong.push(`${key} ${name} is ${param.def.kind}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked.sort()).toEqual([
      'GET /groups min_access_level',
      'GET /groups page',
      'GET /groups per_page',
      'GET /groups/:id/access_requests page',
      'GET /groups/:id/access_requests per_page',
      'GET /groups/:id/members page',
      'GET /groups/:id/members per_page',
      'GET /groups/:id/members/all page',
      'GET /groups/:id/members/all per_page',
      'GET /groups/:id/subgroups min_access_level',
      'GET /groups/:id/subgroups page',
      'GET /groups/:id/subgroups per_page',
      'GET /namespaces page',
      'GET /namespaces per_page',
      'GET /personal_access_tokens page',
      'GET /personal_access_tokens per_page',
      'GET /projects min_access_level',
      'GET /projects page',
      'GET /projects per_page',
      'GET /projects/:id/access_requests page',
      'GET /projects/:id/access_requests per_page',
      'GET /projects/:id/events page',
      'GET /projects/:id/events per_page',
      'GET /projects/:id/forks min_access_level',
      'GET /projects/:id/forks page',
      'GET /projects/:id/forks per_page',
      'GET /projects/:id/groups page',
      'GET /projects/:id/groups per_page',
      'GET /projects/:id/groups shared_min_access_level',
      'GET /projects/:id/hooks page',
      'GET /projects/:id/hooks per_page',
      'GET /projects/:id/hooks/:hook_id/events page',
      'GET /projects/:id/hooks/:hook_id/events per_page',
      'GET /projects/:id/members page',
      'GET /projects/:id/members per_page',
      'GET /projects/:id/members/all page',
      'GET /projects/:id/members/all per_page',
      'GET /projects/:id/starrers page',
      'GET /projects/:id/starrers per_page',
      'GET /projects/:id/uploads page',
      'GET /projects/:id/uploads per_page',
      'GET /projects/:id/users page',
      'GET /projects/:id/users per_page',
      'GET /users page',
      'GET /users per_page',
      'GET /users/:user_id/projects min_access_level',
      'GET /users/:user_id/projects page',
      'GET /users/:user_id/projects per_page',
      'GET /users/:user_id/starred_projects min_access_level',
      'GET /users/:user_id/starred_projects page',
      'GET /users/:user_id/starred_projects per_page',
      'POST /groups/:id/members access_level',
      'POST /projects approvals_before_merge',
      'POST /projects build_timeout',
      'POST /projects ci_default_git_depth',
      'POST /projects/:id/members access_level',
      'POST /projects/:id/push_rule max_file_size',
      'POST /projects/:id/share group_access',
      'POST /projects/user/:user_id approvals_before_merge',
      'POST /projects/user/:user_id build_timeout',
      'POST /projects/user/:user_id ci_default_git_depth',
      'POST /users projects_limit',
      'PUT /application/settings deletion_adjourned_period',
      'PUT /groups/:id/access_requests/:user_id/approve access_level',
      'PUT /groups/:id/members/:user_id access_level',
      'PUT /projects/:id approvals_before_merge',
      'PUT /projects/:id build_timeout',
      'PUT /projects/:id ci_default_git_depth',
      'PUT /projects/:id/access_requests/:user_id/approve access_level',
      'PUT /projects/:id/members/:user_id access_level',
      'PUT /projects/:id/push_rule max_file_size',
      'PUT /users/:id projects_limit',
    ]);
  });
});
