import { BLANK_SHA, buildPushPayload, buildSamplePushPayload, SAMPLE_DATA, type PayloadCommit, type PayloadProject } from './push-payload';

const project: PayloadProject = {
  id: 42, name: 'Demo', description: null, pathWithNamespace: 'group/demo', namespaceName: 'Group', visibilityLevel: 10, defaultBranch: 'main', ciConfigPath: null, avatar: '',
};
const user = { id: 1, name: 'Administrator', username: 'root', email: '', avatarUrl: null };
const commit = (n: number): PayloadCommit => ({
  id: String(n).repeat(40).slice(0, 40), message: `c${n}\n\nbody`, title: `c${n}`, timestamp: new Date(Date.UTC(2025, 0, 1, 12, 0, n)),
  authorName: 'A', authorEmail: 'a@example.com', added: ['f'], modified: [], removed: [],
});

describe('push payload (GitLab DataBuilder::Push)', () => {
  it('builds the push payload with project hook attrs and legacy aliases', () => {
    const commits = Array.from({ length: 25 }, (_, i) => commit(i % 10));
    const p = buildPushPayload({ ref: 'refs/heads/main', before: BLANK_SHA, after: 'b'.repeat(40), checkoutSha: 'b'.repeat(40), user, commits, totalCommitsCount: 25 }, project, 'https://gl.example.com/');
    expect(Object.keys(p)).toEqual([
      'object_kind', 'event_name', 'before', 'after', 'ref', 'ref_protected', 'checkout_sha', 'message', 'user_id', 'user_name', 'user_username', 'user_email',
      'user_avatar', 'project_id', 'project', 'commits', 'total_commits_count', 'push_options', 'repository',
    ]);
    expect(p).toMatchObject({ object_kind: 'push', ref_protected: true, checkout_sha: 'b'.repeat(40), total_commits_count: 25, push_options: {}, message: null });
    expect(p.project).toEqual({
      id: 42, name: 'Demo', description: null, web_url: 'https://gl.example.com/group/demo', avatar_url: null, git_ssh_url: 'git@gl.example.com:group/demo.git',
      git_http_url: 'https://gl.example.com/group/demo.git', namespace: 'Group', visibility_level: 10, path_with_namespace: 'group/demo', default_branch: 'main',
      ci_config_path: null, homepage: 'https://gl.example.com/group/demo', url: 'git@gl.example.com:group/demo.git', ssh_url: 'git@gl.example.com:group/demo.git',
      http_url: 'https://gl.example.com/group/demo.git',
    });
    expect(p.commits).toHaveLength(20);
    expect(p.commits[19]).toEqual({
      id: commits[24]!.id, message: 'c4\n\nbody', title: 'c4', timestamp: '2025-01-01T12:00:04+00:00', url: `https://gl.example.com/group/demo/-/commit/${commits[24]!.id}`,
      author: { name: 'A', email: 'a@example.com' }, added: ['f'], modified: [], removed: [],
    });
    expect(p.repository).toEqual({
      name: 'Demo', url: 'git@gl.example.com:group/demo.git', description: null, homepage: 'https://gl.example.com/group/demo',
      git_http_url: 'https://gl.example.com/group/demo.git', git_ssh_url: 'git@gl.example.com:group/demo.git', visibility_level: 10,
    });
  });

  it('marks tag pushes and deletions', () => {
    const tag = buildPushPayload({ ref: 'refs/tags/v1', before: BLANK_SHA, after: 'c'.repeat(40), checkoutSha: 'd'.repeat(40), user, commits: [], totalCommitsCount: 0 }, project, 'http://x');
    expect(tag).toMatchObject({ object_kind: 'tag_push', event_name: 'tag_push', checkout_sha: 'd'.repeat(40), ref_protected: false });
    const del = buildPushPayload({ ref: 'refs/heads/feature', before: 'c'.repeat(40), after: BLANK_SHA, checkoutSha: '', user, commits: [], totalCommitsCount: 0 }, project, 'http://x');
    expect(del).toMatchObject({ checkout_sha: null, commits: [], total_commits_count: 0, ref_protected: false });
  });

  it('samples the newest three commits of the default branch, or GitLab sample data for an empty repository', () => {
    const newestFirst = [commit(3), commit(2), commit(1)];
    const s = buildSamplePushPayload(project, user, newestFirst, 'http://x');
    expect(s).toMatchObject({ ref: 'refs/heads/main', before: commit(1).id, after: commit(3).id, total_commits_count: 3 });
    expect((s as { commits: { id: string }[] }).commits.map((c) => c.id)).toEqual(newestFirst.map((c) => c.id));
    const empty = buildSamplePushPayload(project, user, [], 'http://x');
    expect(empty).toMatchObject({ object_kind: 'push', before: SAMPLE_DATA.before, commits: SAMPLE_DATA.commits, project_id: 42, project: { id: 42 } });
  });
});
