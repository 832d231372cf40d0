import { projectsV1 } from '@glp/proto';
import { defineParams, p, type ParamSchema } from '../http/params';
import { HttpError } from '../http/errors';
import { KEYSET_UNAVAILABLE, keysetResult, pageResult, paginationParams, parsePagination } from '../http/pagination';
import { route, type RouteContext, type RouteDef } from '../http/route';
import { JsonBytes, jsonArray } from '../http/respond';
import { encodedProjectId } from '../project-bytes-client';
import type { InferParams } from '../http/params';
import { basicProjectDetails, presentationVariant, projectEntity, projectForViewer, projectWithAccess } from '../presenters/project';
import { createSettingsParamFields, settingsFromParams, settingsParamFields } from './project-settings-params';
import { customAttributePairs, showsCustomAttributes } from './custom-attribute-params';
import { fileOrEmptyParam, UploadedFile } from '../http/file-param';
import { applyAvatar, avatarFileOf } from './project-avatar';

const VISIBILITY = ['private', 'internal', 'public'] as const;
const VISIBILITY_TO_PROTO = {
  private: projectsV1.Visibility.VISIBILITY_PRIVATE,
  internal: projectsV1.Visibility.VISIBILITY_INTERNAL,
  public: projectsV1.Visibility.VISIBILITY_PUBLIC,
} as const;

/** A `visibility` param as the proto enum; not sent (or null) is VISIBILITY_UNSPECIFIED. */
export function visibilityToProto(v: string | null | undefined): projectsV1.Visibility {
  return v ? VISIBILITY_TO_PROTO[v as keyof typeof VISIBILITY_TO_PROTO] : projectsV1.Visibility.VISIBILITY_UNSPECIFIED;
}

/** GitLab's plan limit `offset_pagination_limit`: page × per_page beyond it is refused. */
const OFFSET_PAGINATION_LIMIT = 50000;
const ACCESS_LEVELS = [5, 10, 15, 20, 30, 40, 50] as const;
const ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity', 'star_count',
  'storage_size', 'repository_size', 'wiki_size', 'packages_size'] as const;

/** `:id` is a numeric id or a URL-encoded full path (Express has decoded `%2F` already). */
export function projectSelector(id: string): projectsV1.GetProjectRequest['selector'] | undefined {
  if (/^\d+$/.test(id)) {
    const n = Number(id);
    return Number.isSafeInteger(n) ? { $case: 'id', value: n } : undefined; // beyond any id: not found
  }
  if (id.includes('/')) return { $case: 'fullPath', value: id };
  return undefined; // a bare word is never a project (GitLab: 404)
}

/** The attributes POST /projects and PUT /projects/:id share (GitLab's `optional_project_params`, name, path, default_branch). */
export const projectAttributeParams = {
  name: p.string(),
  path: p.string(),
  description: p.string(),
  visibility: p.enumOf(VISIBILITY),
  default_branch: p.string(),
  topics: p.arrayOf(p.string()).commaSeparated(),
  tag_list: p.arrayOf(p.string()).commaSeparated(),
  ...settingsParamFields,
  /** A multipart file (GitLab's `WorkhorseFile`), or `avatar=` to remove it (edit); other text is "avatar is invalid". */
  avatar: fileOrEmptyParam(),
};

type ImportParams = { [K in keyof typeof importParamFields]?: InferParams<typeof importParamFields>[K] };

/** The mirror params sent (unset: unchanged); `mirror_user_id` only from administrators (GitLab drops it for others). */
export function mirrorSettingsOf(params: ImportParams, admin: boolean): projectsV1.MirrorSettings | undefined {
  const m: projectsV1.MirrorSettings = {
    mirror: params.mirror ?? undefined, mirrorTriggerBuilds: params.mirror_trigger_builds ?? undefined,
    onlyMirrorProtectedBranches: params.only_mirror_protected_branches ?? undefined,
    mirrorOverwritesDivergedBranches: params.mirror_overwrites_diverged_branches ?? undefined,
    mirrorUserId: admin ? params.mirror_user_id ?? undefined : undefined, mirrorBranchRegex: params.mirror_branch_regex ?? undefined,
  };
  return Object.values(m).some((v) => v !== undefined) ? m : undefined;
}

/** Import from a URL and pull-mirror it (GitLab's `import_url` and EE's mirror params on create). */
export const importParamFields = {
  import_url: p.string(),
  mirror: p.boolean(),
  mirror_trigger_builds: p.boolean(),
  only_mirror_protected_branches: p.boolean(),
  mirror_overwrites_diverged_branches: p.boolean(),
  /** Administrators only (GitLab drops it for others). */
  mirror_user_id: p.integer(),
  mirror_branch_regex: p.string(),
};

const createProjectParams = defineParams({
  ...projectAttributeParams,
  namespace_id: p.integer(),
  repository_storage: p.string(),
  initialize_with_readme: p.boolean(),
  ...createSettingsParamFields,
  ...importParamFields,
}).atLeastOneOf('name', 'path').mutuallyExclusive('only_mirror_protected_branches', 'mirror_branch_regex');

/**
 * The filters every project listing shares (GitLab's `collection_params` + `statistics_params`). `statistics` shows each
 * project's statistics to callers who are Reporter or above in it (administrators: all); listings never pass `license`.
 */
export const projectListingParamFields = {
  ...paginationParams,
  order_by: p.enumOf(ORDER_BY).default('created_at'),
  sort: p.enumOf(['asc', 'desc']).default('desc'),
  archived: p.boolean(),
  visibility: p.enumOf(VISIBILITY),
  search: p.string(),
  search_namespaces: p.boolean(),
  simple: p.boolean().default(false),
  owned: p.boolean().default(false),
  starred: p.boolean().default(false),
  membership: p.boolean().default(false),
  with_issues_enabled: p.boolean().default(false),
  with_merge_requests_enabled: p.boolean().default(false),
  with_programming_language: p.string(),
  statistics: p.boolean().default(false),
  with_custom_attributes: p.boolean(),
  custom_attributes: p.hash(),
  min_access_level: p.int32().values(ACCESS_LEVELS),
  id_after: p.integer(),
  id_before: p.integer(),
  last_activity_after: p.datetime(),
  last_activity_before: p.datetime(),
  repository_storage: p.string(),
  topic: p.arrayOf(p.string()).commaSeparated(),
  /** `keyset` opts in to keyset pagination (GitLab's `params[:pagination]`); anything else is offset pagination. */
  pagination: p.string(),
  // GitLab EE's `optional_filter_params_ee` (Geo checksum failures).
  repository_checksum_failed: p.boolean().default(false),
  wiki_checksum_failed: p.boolean().default(false),
  active: p.boolean(),
  marked_for_deletion_on: p.date(),
};

const listProjectsParams = defineParams(projectListingParamFields);

/**
 * Listings whose filters exclude id_after / id_before (starred projects, forks) still page with keyset: the bound is
 * the cursor their own `rel="next"` links carry, so it is read with `pagination=keyset` only (else a client walking the
 * links would be sent the first page again and again).
 */
export function keysetCursorOnly<T extends { pagination?: string | null; id_after?: number | null; id_before?: number | null }>(params: T): T {
  return params.pagination === 'keyset' ? params : { ...params, id_after: undefined, id_before: undefined };
}

/** What a listing adds to the caller's filters: the user listings' namespace or starrer. */
export interface ListingScope {
  namespaceId?: number;
  starredByUserId?: number;
  /** GET /projects/:id/forks: only direct forks of this project. */
  forkedFromProjectId?: number;
}

/**
 * One page of a project listing (GET /projects, /users/:user_id/projects, /users/:user_id/starred_projects):
 * offset pagination with GitLab's 50,000 offset limit, or `pagination=keyset` (order_by=id only; else 405).
 */
export async function listProjectsPage(
  { req, params, actor, services, urls }: Pick<RouteContext<InferParams<typeof projectListingParamFields>>, 'req' | 'params' | 'actor' | 'services' | 'urls'>,
  scope: ListingScope = {},
) {
  const { page, perPage } = parsePagination(params);
  const keyset = params.pagination === 'keyset';
  if (keyset && params.order_by !== 'id') throw new HttpError(405, { error: KEYSET_UNAVAILABLE });
  if (!keyset && page * perPage > OFFSET_PAGINATION_LIMIT) {
    throw new HttpError(405, {
      error: `Offset pagination has a maximum allowed offset of ${OFFSET_PAGINATION_LIMIT} for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.`,
    });
  }
  const sort = params.sort === 'asc' ? 'asc' : 'desc';
  const res = await services.projectBytes.listProjects({
    page: keyset ? 1 : page,
    perPage,
    orderBy: params.order_by ?? 'created_at',
    sort,
    visibility: visibilityToProto(params.visibility),
    archived: params.archived ?? undefined,
    search: params.search ?? '',
    searchNamespaces: params.search_namespaces ?? false,
    owned: params.owned,
    starred: params.starred,
    membership: params.membership || params.min_access_level != null,
    idAfter: params.id_after ?? 0,
    idBefore: params.id_before ?? 0,
    topics: params.topic ?? [],
    skipCount: keyset,
    minAccessLevel: params.min_access_level ?? undefined,
    namespaceId: scope.namespaceId ?? 0,
    starredByUserId: scope.starredByUserId ?? 0,
    sharedWithGroupId: 0,
    lastActivityAfter: params.last_activity_after ?? undefined,
    lastActivityBefore: params.last_activity_before ?? undefined,
    withIssuesEnabled: params.with_issues_enabled,
    withMergeRequestsEnabled: params.with_merge_requests_enabled,
    withProgrammingLanguage: params.with_programming_language ?? undefined,
    repositoryStorage: params.repository_storage ?? '',
    customAttributes: customAttributePairs(params.custom_attributes),
    withCustomAttributes: params.with_custom_attributes === true,
    statistics: params.statistics,
    forkedFromProjectId: scope.forkedFromProjectId ?? 0,
    repositoryChecksumFailed: params.repository_checksum_failed ?? false,
    wikiChecksumFailed: params.wiki_checksum_failed ?? false,
    active: params.active ?? undefined,
    markedForDeletionOn: params.marked_for_deletion_on ?? '',
  });
  const viewer = { authenticated: actor.kind === 'user', admin: actor.admin, customAttributes: showsCustomAttributes(params.with_custom_attributes, actor) };
  const [entity, present] = viewer.authenticated && !params.simple ? ['with_access', projectWithAccess] as const : ['basic', basicProjectDetails] as const;
  const variant = presentationVariant(entity, viewer, urls);
  const items = res.projects.map((bytes) => services.presentedProjects.json(variant, encodedProjectId(bytes), bytes, () => present(projectsV1.Project.decode(bytes), urls, viewer)));
  const last = res.projects.at(-1);
  const result = keyset
    ? keysetResult(req, urls.base, sort, items, last ? encodedProjectId(last) : undefined, res.more)
    : pageResult(req, urls.base, { page, perPage }, items, res.total);
  return { headers: result.headers, body: jsonArray(result.body) };
}

type CreateParams = typeof createProjectParams extends ParamSchema<infer F> ? InferParams<F> : never;

/** POST /projects and POST /projects/user/:user_id: the create request (`userId` 0: as the caller). */
function createProjectRequest(params: CreateParams, userId: number, admin: boolean): projectsV1.CreateProjectRequest {
  return {
    name: params.name ?? undefined,
    path: params.path ?? undefined,
    namespaceId: params.namespace_id ?? 0,
    description: params.description ?? undefined,
    visibility: visibilityToProto(params.visibility),
    defaultBranch: params.default_branch ?? undefined,
    topics: [...(params.topics ?? []), ...(params.tag_list ?? [])],
    initializeWithReadme: params.initialize_with_readme ?? false,
    settings: settingsFromParams(params),
    userId,
    avatar: avatarFileOf(params.avatar),
    importUrl: params.import_url || undefined,
    mirror: params.import_url ? mirrorSettingsOf(params, admin) : undefined,
    // Administrators only (GitLab drops it for others).
    repositoryStorage: admin ? params.repository_storage ?? '' : '',
  };
}

/**
 * POST /projects/user/:user_id (GitLab `lib/api/projects.rb` `post "user/:user_id"`): POST /projects' params with `name`
 * required and `user_id` an Integer; Grape's 400s come before `authenticated_as_admin!` (403), then `User.find_by(id:)`
 * (404 User Not Found, decided by the projects service, which creates the project as that user).
 */
const createProjectForUserParams = defineParams({
  ...projectAttributeParams,
  name: p.string().required(),
  user_id: p.integer().required(),
  namespace_id: p.integer(),
  repository_storage: p.string(),
  initialize_with_readme: p.boolean(),
  ...createSettingsParamFields,
  ...importParamFields,
});

/**
 * GitLab's `validate_git_import_url!` (before the project is created): repo-admin checks the URL against the outbound
 * URL rules and that it answers as a git repository; a refusal is 422 `{"message":"<reason>"}`. Blank: no import.
 */
export async function validateImportUrl(services: RouteContext<unknown>['services'], url: string | null | undefined): Promise<void> {
  if (!url) return;
  await services.repoAdmin.validateRemote({ url }).catch((err: unknown) => {
    const e = err as { kind?: unknown; message?: unknown };
    if (e?.kind === 'rejected' || e?.kind === 'bad_request') throw HttpError.unprocessable(String(e.message));
    throw err;
  });
}

/**
 * POST /projects words a personal project limit as `error!(project.errors[:limit_reached], 403)`: 403
 * `{"error":["Your project limit is N projects! ..."]}` (create-for-user and fork keep their own wording).
 */
function limitReached(err: unknown): HttpError | undefined {
  const e = err as { kind?: unknown; fields?: Record<string, string[]> };
  const messages = e?.kind === 'invalid' ? e.fields?.limit_reached : undefined;
  return messages?.length ? new HttpError(403, { error: messages }) : undefined;
}

export const projectRoutes: RouteDef[] = [
  route({
    method: 'POST', path: '/projects', access: 'user', params: createProjectParams,
    handler: async ({ params, actor, services, urls }) => {
      await validateImportUrl(services, params.import_url);
      const { project } = await services.projects.createProject(createProjectRequest(params, 0, actor.admin)).catch((err: unknown) => {
        throw limitReached(err) ?? err;
      });
      const created = await applyAvatar(services, project!, params.avatar instanceof UploadedFile ? params.avatar : undefined);
      return { status: 201, body: projectEntity(created, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),

  route({
    method: 'POST', path: '/projects/user/:user_id', access: 'user', params: createProjectForUserParams,
    handler: async ({ params, actor, services, urls }) => {
      if (!actor.admin) throw HttpError.forbidden(); // authenticated_as_admin!
      const userId = params.user_id ?? 0;
      if (userId < 1) throw HttpError.notFound('User'); // no user has such an id (and 0 would mean the caller)
      await validateImportUrl(services, params.import_url);
      const { project } = await services.projects.createProject(createProjectRequest(params, userId, actor.admin));
      const created = await applyAvatar(services, project!, params.avatar instanceof UploadedFile ? params.avatar : undefined);
      return { status: 201, body: projectEntity(created, urls, { authenticated: true, admin: actor.admin }) };
    },
  }),

  route({
    method: 'GET', path: '/projects/:id', access: 'public',
    params: defineParams({ id: p.string().required(), statistics: p.boolean(), license: p.boolean(), with_custom_attributes: p.boolean() }),
    handler: async ({ params, actor, services, urls }) => {
      const selector = projectSelector(params.id ?? '');
      if (!selector) throw HttpError.notFound('Project');
      const { project } = await services.projectReads.read({ selector, withCustomAttributes: params.with_custom_attributes === true, statistics: params.statistics === true });
      const viewer = { authenticated: actor.kind === 'user', admin: actor.admin, customAttributes: showsCustomAttributes(params.with_custom_attributes, actor), license: params.license === true };
      const variant = presentationVariant('for_viewer', viewer, urls);
      return { body: new JsonBytes(services.presentedProjects.json(variant, encodedProjectId(project!), project!, () => projectForViewer(projectsV1.Project.decode(project!), urls, viewer))) };
    },
  }),

  route({
    method: 'GET', path: '/projects', access: 'public', params: listProjectsParams,
    handler: (ctx) => listProjectsPage(ctx),
  }),
];
