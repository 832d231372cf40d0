import type { Actor, DomainError } from '@glp/service-kit';
import { allowedSettings, mayEdit, needsGroupVisibility, planProjectEdit, type EditableProject, type ProjectEdit } from './project-edit';
import { ACCESS } from './visibility';

const user: Actor = { kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'] };
const admin: Actor = { ...user, admin: true };
const current: EditableProject = {
  name: 'App', path: 'app', description: null, visibility: 'private', defaultBranch: null, topics: ['Go', 'k8s'], settings: {},
};
const free = { taken: { name: false, path: false } };
const edit = (e: Partial<ProjectEdit>): ProjectEdit => ({ settings: {}, ...e });
const fieldsOf = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as DomainError).fields;
  }
};

describe('who may edit a project', () => {
  it('needs Maintainer to edit and Owner to send a visibility, even the current one; administrators may all', () => {
    expect(mayEdit(user, ACCESS.DEVELOPER, edit({ name: 'x' }))).toBe(false);
    expect(mayEdit(user, ACCESS.MAINTAINER, edit({ name: 'x' }))).toBe(true);
    expect(mayEdit(user, ACCESS.MAINTAINER, edit({ visibility: 'private' }))).toBe(false);
    expect(mayEdit(user, ACCESS.OWNER, edit({ visibility: 'public' }))).toBe(true);
    expect(mayEdit(admin, ACCESS.NONE, edit({ visibility: 'public' }))).toBe(true);
  });

  it("drops emails_enabled for non-owners (GitLab's set_emails_disabled), keeps the rest", () => {
    expect(allowedSettings(user, ACCESS.MAINTAINER, { emailsEnabled: false, lfsEnabled: false })).toEqual({ lfsEnabled: false });
    expect(allowedSettings(user, ACCESS.OWNER, { emailsEnabled: false })).toEqual({ emailsEnabled: false });
    expect(allowedSettings(admin, ACCESS.NONE, { emailsEnabled: false })).toEqual({ emailsEnabled: false });
  });

  it('asks for the group visibility only when a group project becomes internal or public', () => {
    expect(needsGroupVisibility(current, 'group', edit({ visibility: 'public' }))).toBe(true);
    expect(needsGroupVisibility(current, 'user', edit({ visibility: 'public' }))).toBe(false);
    expect(needsGroupVisibility(current, 'group', edit({ visibility: 'private' }))).toBe(false);
    expect(needsGroupVisibility({ visibility: 'public' }, 'group', edit({ visibility: 'private' }))).toBe(false);
    expect(needsGroupVisibility(current, 'group', edit({ name: 'x' }))).toBe(false);
  });
});

describe('planning an edit', () => {
  it('changes only what differs and names the API attributes that changed', () => {
    const plan = planProjectEdit(current, edit({
      name: 'App', path: 'app-2', description: 'new', visibility: 'public', topics: ['k8s', 'GO'],
      settings: { mergeMethod: 'ff', issuesAccessLevel: 'enabled', buildTimeout: 3600, ciDefaultGitDepth: 50 },
    }), free);
    expect(plan.changed).toEqual(['path', 'description', 'visibility', 'merge_method', 'ci_default_git_depth']);
    expect(plan.patch).toEqual({
      path: 'app-2', description: 'new', visibility: 'public',
      // pages_access_level defaulted to "private" (private project): it keeps that instead of following the visibility
      settings: { mergeMethod: 'ff', ciDefaultGitDepth: 50, pagesAccessLevel: 'private' },
    });
  });

  it('replaces topics (normalized) and treats the current value of everything as no change', () => {
    expect(planProjectEdit(current, edit({ topics: ['rust, go', ' '] }), free)).toEqual({ patch: { topics: ['rust', 'go'] }, changed: ['topics'] });
    expect(planProjectEdit(current, edit({ topics: [] }), free).patch).toEqual({ topics: [] });
    const same = planProjectEdit(current, edit({ name: 'App', visibility: 'private', defaultBranch: 'main', settings: { lfsEnabled: true } }), free);
    expect(same).toEqual({ patch: {}, changed: [] });
    expect(planProjectEdit({ ...current, settings: { lfsEnabled: false } }, edit({ settings: { lfsEnabled: true } }), free).changed).toEqual(['lfs_enabled']);
  });

  it('refuses a default branch the (empty) repository does not have before anything else', () => {
    expect(fieldsOf(() => planProjectEdit(current, edit({ name: '-bad', defaultBranch: 'develop' }), free))).toEqual({
      base: ["Could not change HEAD: branch 'develop' does not exist"],
    });
    expect(planProjectEdit({ ...current, defaultBranch: 'trunk' }, edit({ defaultBranch: 'trunk' }), free).changed).toEqual([]);
  });

  it('reports every validation error at once, uniqueness after format', () => {
    expect(fieldsOf(() => planProjectEdit(current, edit({
      name: '-bad', path: 'tree', description: 'x'.repeat(2001), topics: ['t'.repeat(256)], settings: { mergeMethod: 'squash', buildTimeout: 10 },
    }), { taken: { name: true, path: true } }))).toEqual({
      name: [expect.stringContaining('It must start with a letter'), 'has already been taken'],
      path: ['tree is a reserved name', 'has already been taken'],
      description: ['is too long (maximum is 2000 characters)'],
      topics: ['is too long (maximum is 255 characters)'],
      merge_method: ['is not included in the list'],
      build_timeout: ['is too short (minimum is 10 minutes)'],
    });
    expect(fieldsOf(() => planProjectEdit(current, edit({ name: '' }), free))).toEqual({ name: ["can't be blank"] });
  });

  it('checks merge requests and CI against the repository level the project will have', () => {
    const privateRepo = { ...current, settings: { repositoryAccessLevel: 'private', mergeRequestsAccessLevel: 'private', buildsAccessLevel: 'private' } };
    expect(fieldsOf(() => planProjectEdit(privateRepo, edit({ settings: { mergeRequestsAccessLevel: 'enabled' } }), free))).toEqual({
      'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
    });
    expect(fieldsOf(() => planProjectEdit(current, edit({ settings: { repositoryAccessLevel: 'disabled' } }), free))).toEqual({
      'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
      'project_feature.builds_access_level': ['cannot have higher visibility level than repository access level'],
    });
    const lowered = planProjectEdit(current, edit({ settings: { repositoryAccessLevel: 'private', mergeRequestsAccessLevel: 'private', buildsAccessLevel: 'disabled' } }), free);
    expect(lowered.changed).toEqual(['repository_access_level', 'merge_requests_access_level', 'builds_access_level']);
  });

  it("keeps a group project no more visible than its group (GitLab's visibility_level_allowed_by_group)", () => {
    expect(fieldsOf(() => planProjectEdit(current, edit({ visibility: 'public' }), { ...free, groupVisibility: 'internal' }))).toEqual({
      visibility_level: ['public is not allowed in a internal group.'],
    });
    expect(planProjectEdit(current, edit({ visibility: 'internal' }), { ...free, groupVisibility: 'internal' }).changed).toEqual(['visibility']);
    // only the new level counts: lowering a project that is above its group to a level still above is refused too
    expect(fieldsOf(() => planProjectEdit({ ...current, visibility: 'public' }, edit({ visibility: 'internal' }), { ...free, groupVisibility: 'private' })))
      .toEqual({ visibility_level: ['internal is not allowed in a private group.'] });
    expect(planProjectEdit({ ...current, visibility: 'public' }, edit({ visibility: 'private' }), free).changed).toEqual(['visibility']);
  });
});
