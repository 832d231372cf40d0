/**
 * GitLab's push and tag push webhook payload (`lib/gitlab/data_builder/push.rb` `build`/`build_sample`,
 * `app/models/project.rb#hook_attrs`, `app/models/commit.rb#hook_attrs`), built once per event.
 */
export const BLANK_SHA = '0'.repeat(40);
/** GitLab keeps the 20 newest commits of a push in the payload. */
export const MAX_PAYLOAD_COMMITS = 20;

export interface PayloadProject {
  id: number;
  name: string;
  description: string | null;
  /** "namespace/path" */
  pathWithNamespace: string;
  namespaceName: string;
  /** 0 private, 10 internal, 20 public */
  visibilityLevel: number;
  defaultBranch: string | null;
  ciConfigPath: string | null;
  /** Stored avatar "<secret>/<file>" or empty. */
  avatar: string;
}

export interface PayloadCommit {
  id: string;
  message: string;
  title: string;
  timestamp: Date | undefined;
  authorName: string;
  authorEmail: string;
  added: string[];
  modified: string[];
  removed: string[];
}

export interface PayloadUser {
  id: number;
  name: string;
  username: string;
  /** GitLab sends the user's public email ("" when none). */
  email: string;
  avatarUrl: string | null;
}

export interface PushInput {
  ref: string;
  before: string;
  after: string;
  checkoutSha: string;
  user: PayloadUser;
  commits: PayloadCommit[];
  totalCommitsCount: number;
}

/** visibility enum of projects' proto (1 private, 2 internal, 3 public) → GitLab's visibility_level. */
export function visibilityLevel(visibility: number): number {
  return visibility === 3 ? 20 : visibility === 2 ? 10 : 0;
}

/** Ruby's Time#xmlschema of a UTC time: "2013-05-13T18:18:08+00:00". */
export function xmlschema(d: Date | undefined): string | null {
  if (!d) return null;
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** `Project#hook_attrs(backward: true)`. */
export function projectHookAttrs(p: PayloadProject, externalUrl: string) {
  const base = externalUrl.replace(/\/+$/, '');
  const host = new URL(base).hostname;
  const webUrl = `${base}/${p.pathWithNamespace}`;
  const ssh = `git@${host}:${p.pathWithNamespace}.git`;
  const http = `${webUrl}.git`;
  const slash = p.avatar.indexOf('/');
  const avatarUrl = slash > 0 ? `${base}/uploads/-/system/project/avatar/${p.id}/${encodeURIComponent(p.avatar.slice(slash + 1))}` : null;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    web_url: webUrl,
    avatar_url: avatarUrl,
    git_ssh_url: ssh,
    git_http_url: http,
    namespace: p.namespaceName,
    visibility_level: p.visibilityLevel,
    path_with_namespace: p.pathWithNamespace,
    default_branch: p.defaultBranch,
    ci_config_path: p.ciConfigPath,
    homepage: webUrl,
    url: ssh,
    ssh_url: ssh,
    http_url: http,
  };
}

/** `Commit#hook_attrs(with_changed_files: true)`. */
export function commitHookAttrs(c: PayloadCommit, projectWebUrl: string) {
  return {
    id: c.id,
    message: c.message,
    title: c.title,
    timestamp: xmlschema(c.timestamp),
    url: `${projectWebUrl}/-/commit/${c.id}`,
    author: { name: c.authorName, email: c.authorEmail },
    added: c.added,
    modified: c.modified,
    removed: c.removed,
  };
}

/** `Gitlab::DataBuilder::Push.build`: commits in the order given (a push: oldest first), the last 20 of them. */
export function buildPushPayload(input: PushInput, project: PayloadProject, externalUrl: string) {
  const attrs = projectHookAttrs(project, externalUrl);
  const kind = input.ref.startsWith('refs/tags/') ? 'tag_push' : 'push';
  const deleted = !input.after || input.after === BLANK_SHA;
  const branch = input.ref.startsWith('refs/heads/') ? input.ref.slice('refs/heads/'.length) : null;
  return {
    object_kind: kind,
    event_name: kind,
    before: input.before,
    after: input.after,
    ref: input.ref,
    // The default branch is the one protected branch here (GitLab protects it by default).
    ref_protected: branch !== null && branch === project.defaultBranch,
    checkout_sha: deleted ? null : input.checkoutSha || input.after,
    message: null,
    user_id: input.user.id,
    user_name: input.user.name,
    user_username: input.user.username,
    user_email: input.user.email,
    user_avatar: input.user.avatarUrl,
    project_id: project.id,
    project: attrs,
    commits: input.commits.slice(-MAX_PAYLOAD_COMMITS).map((c) => commitHookAttrs(c, attrs.web_url)),
    total_commits_count: input.totalCommitsCount,
    push_options: {},
    repository: {
      name: attrs.name, url: attrs.url, description: attrs.description, homepage: attrs.homepage,
      git_http_url: attrs.git_http_url, git_ssh_url: attrs.git_ssh_url, visibility_level: attrs.visibility_level,
    },
  };
}

/**
 * `Gitlab::DataBuilder::Push.build_sample`: the newest 3 commits of the default branch (newest first, as
 * `repository.commits` lists them; before = the oldest, after = the newest), or GitLab's fixed SAMPLE_DATA for an empty
 * repository. The sample's project fields are this project's (GitLab sends its fixed project 15; a receiver testing a
 * hook is better served by its own project).
 */
export function buildSamplePushPayload(project: PayloadProject, user: PayloadUser, newestFirst: PayloadCommit[], externalUrl: string) {
  if (newestFirst.length === 0 || !project.defaultBranch) {
    return { ...SAMPLE_DATA, project_id: project.id, project: projectHookAttrs(project, externalUrl) };
  }
  return buildPushPayload(
    {
      ref: `refs/heads/${project.defaultBranch}`,
      before: newestFirst[newestFirst.length - 1]!.id,
      after: newestFirst[0]!.id,
      checkoutSha: newestFirst[0]!.id,
      user,
      commits: newestFirst,
      totalCommitsCount: newestFirst.length,
    },
    project,
    externalUrl,
  );
}

/** `Gitlab::DataBuilder::Push::SAMPLE_DATA`. */
export const SAMPLE_DATA = Object.freeze({
  object_kind: 'push',
  event_name: 'push',
  before: '95790bf891e76fee5e1747ab589903a6a1f80f22',
  after: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  ref: 'refs/heads/master',
  checkout_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  message: 'Hello World',
  user_id: 4,
  user_name: 'John Smith',
  user_email: 'john@example.com',
  user_avatar: 'https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80',
  project_id: 15,
  project: {
    id: 15,
    name: 'gitlab',
    description: '',
    web_url: 'http://test.example.com/gitlab/gitlab',
    avatar_url: 'https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80',
    git_ssh_url: 'git@test.example.com:gitlab/gitlab.git',
    git_http_url: 'http://test.example.com/gitlab/gitlab.git',
    namespace: 'gitlab',
    visibility_level: 0,
    path_with_namespace: 'gitlab/gitlab',
    default_branch: 'master',
  } as Record<string, unknown>,
  commits: [
    {
      id: 'c5feabde2d8cd023215af4d2ceeb7a64839fc428',
      message: 'Add simple search to projects in public area\n\ncommit message body',
      title: 'Add simple search to projects in public area',
      timestamp: '2013-05-13T18:18:08+00:00',
      url: 'https://test.example.com/gitlab/gitlab/-/commit/c5feabde2d8cd023215af4d2ceeb7a64839fc428',
      author: { name: 'Test User', email: 'test@example.com' },
    },
  ],
  total_commits_count: 1,
  push_options: { ci: { skip: true } },
});
