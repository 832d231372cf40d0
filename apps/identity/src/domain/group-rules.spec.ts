import { groupErrors } from './group-rules';

describe('groupErrors (GitLab Group validations)', () => {
  const ok = { name: 'Platform Team (core)', path: 'platform-team', visibility: 'private' as const };

  it('accepts a valid group', () => {
    expect(groupErrors(ok, {})).toEqual({});
  });

  it('refuses blank or ill-formed names and paths', () => {
    expect(groupErrors({ ...ok, name: '' }, {}).name).toEqual(["can't be blank"]);
    expect(groupErrors({ ...ok, name: '-starts-with-dash' }, {}).name).toHaveLength(1);
    expect(groupErrors({ ...ok, path: 'ends.' }, {}).path).toHaveLength(1);
    expect(groupErrors({ ...ok, path: 'x.git' }, {}).path).toHaveLength(1);
  });

  it('reserves top-level words only at the top level', () => {
    expect(groupErrors({ ...ok, path: 'admin' }, {}).path).toEqual(['admin is a reserved name']);
    expect(groupErrors({ ...ok, path: 'admin' }, { parentVisibility: 'public' })).toEqual({});
  });

  it('keeps a subgroup no more public than its parent, and a parent no less public than its subgroups', () => {
    expect(groupErrors({ ...ok, visibility: 'public' }, { parentVisibility: 'internal' }).visibility_level).toEqual([
      'public is not allowed since the parent group has a internal visibility.',
    ]);
    expect(groupErrors({ ...ok, visibility: 'internal' }, { parentVisibility: 'internal' })).toEqual({});
    expect(groupErrors({ ...ok, visibility: 'private' }, { mostPublicChild: 'internal' }).visibility_level).toEqual([
      'private is not allowed since there are sub-groups with higher visibility.',
    ]);
  });
});
