import { identityV1 } from '@glp/proto';
import { groupSelector } from '../routes/group-routes';
import { groupDetail, groupEntity, rubyErrorsInspect } from './group';
import { memberEntity } from './member';
import { namespaceEntity } from './namespace';
import { urlBuilder } from './urls';

const urls = urlBuilder('http://gitlab.example.com/');
const created = new Date('2024-05-07T04:27:17.016Z');

const group = (over: Partial<identityV1.Group> = {}) =>
  identityV1.Group.fromPartial({
    id: 7, name: 'Child', path: 'child', fullPath: 'parent/child', fullName: 'Parent / Child', description: '',
    visibility: 'private', requestAccessEnabled: true, parentId: 3, createdAt: created, callerAccessLevel: 50, ...over,
  });

describe('group entities', () => {
  it('renders Entities::Group with GitLab defaults, in GitLab key order', () => {
    const g = groupEntity(group(), urls);
    expect(g).toMatchObject({
      id: 7, web_url: 'http://gitlab.example.com/groups/parent/child', name: 'Child', path: 'child', description: '',
      visibility: 'private', request_access_enabled: true, full_name: 'Parent / Child', full_path: 'parent/child',
      created_at: '2024-05-07T04:27:17.016Z', parent_id: 3, two_factor_grace_period: 48, project_creation_level: 'developer',
      subgroup_creation_level: 'maintainer', default_branch_protection: 2, shared_runners_setting: 'enabled',
      ldap_cn: null, ldap_access: null, wiki_access_level: 'enabled', marked_for_deletion_on: null,
    });
    const keys = Object.keys(JSON.parse(JSON.stringify(g)));
    expect(keys.slice(0, 6)).toEqual(['id', 'web_url', 'name', 'path', 'description', 'visibility']);
    expect(keys).not.toContain('shared_with_groups');
    expect(keys).not.toContain('projects');
    expect(JSON.parse(JSON.stringify(g)).default_branch_protection_defaults).toEqual({
      allowed_to_push: [{ access_level: 40 }], allow_force_push: false, allowed_to_merge: [{ access_level: 40 }], developer_can_initial_push: false,
    });
  });

  it('renders GroupDetail: shared_with_groups, and the root-only flag only at the top level', () => {
    const sub = JSON.parse(JSON.stringify(groupDetail(group(), urls)));
    expect(sub.shared_with_groups).toEqual([]);
    expect(sub).not.toHaveProperty('prevent_sharing_groups_outside_hierarchy');
    expect(sub.projects).toEqual([]); // the group's projects, given by the route
    expect(sub.shared_projects).toEqual([]);
    const top = JSON.parse(JSON.stringify(groupDetail(group({ parentId: 0, fullPath: 'parent' }), urls)));
    expect(top).toMatchObject({ parent_id: null, prevent_sharing_groups_outside_hierarchy: false, web_url: 'http://gitlab.example.com/groups/parent' });
  });

  it('renders validation errors like Ruby Hash#inspect', () => {
    expect(rubyErrorsInspect({ path: ['has already been taken'] })).toBe('{:path=>["has already been taken"]}');
    expect(rubyErrorsInspect({ name: ["can't be blank"], 'route.path': ['a "b" \\ #{x}'] })).toBe(
      '{:name=>["can\'t be blank"], :"route.path"=>["a \\"b\\" \\\\ \\#{x}"]}',
    );
  });
});

describe('member and namespace entities', () => {
  const user = identityV1.User.fromPartial({ id: 4, username: 'alice', name: 'Alice', state: 'active' });

  it('renders Entities::Member: UserBasic merged, created_by only when known', () => {
    const m = identityV1.GroupMember.fromPartial({ user, accessLevel: 30, createdAt: created, expiresAt: '', groupId: 7, createdById: 1 });
    const body = JSON.parse(JSON.stringify(memberEntity(m, urls)));
    expect(body).toEqual({
      id: 4, username: 'alice', public_email: null, name: 'Alice', state: 'active', locked: false, avatar_url: null,
      web_url: 'http://gitlab.example.com/alice', access_level: 30, created_at: '2024-05-07T04:27:17.016Z', expires_at: null,
      membership_state: 'active',
    });
    const root = identityV1.User.fromPartial({ id: 1, username: 'root', name: 'Administrator', state: 'active' });
    const withCreator = memberEntity({ ...m, expiresAt: '2030-01-02', createdBy: root }, urls);
    expect(withCreator).toMatchObject({ expires_at: '2030-01-02', created_by: { id: 1, username: 'root', web_url: 'http://gitlab.example.com/root' } });
  });

  it('renders namespaces: user → owner page, group → /groups/<full_path>', () => {
    const personal = identityV1.Namespace.fromPartial({ id: 2, name: 'Alice', path: 'alice', kind: 'user', fullPath: 'alice', owner: user });
    expect(namespaceEntity(personal, urls)).toEqual({
      id: 2, name: 'Alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, avatar_url: null, web_url: 'http://gitlab.example.com/alice',
    });
    const sub = identityV1.Namespace.fromPartial({ id: 9, name: 'B', path: 'b', kind: 'group', fullPath: 'a/b', parentId: 8 });
    expect(namespaceEntity(sub, urls)).toMatchObject({ parent_id: 8, web_url: 'http://gitlab.example.com/groups/a/b' });
  });

  it('resolves :id as a numeric id or a full path', () => {
    expect(groupSelector('42')).toEqual({ selector: { $case: 'id', value: 42 } });
    expect(groupSelector('parent/child')).toEqual({ selector: { $case: 'fullPath', value: 'parent/child' } });
    expect(groupSelector('top')).toEqual({ selector: { $case: 'fullPath', value: 'top' } });
    expect(groupSelector('99999999999999999999')).toBeUndefined();
  });
});
