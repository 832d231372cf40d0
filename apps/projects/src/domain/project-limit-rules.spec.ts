import { initialOwnerOf, personalProjectLimitError } from './project-limit-rules';

describe('personal project limit', () => {
  it('allows while projects are left, and words GitLab’s two refusals', () => {
    expect(personalProjectLimitError(100000, 3)).toBeUndefined();
    expect(personalProjectLimitError(2, 1)).toBeUndefined();
    expect(personalProjectLimitError(2, 2)).toBe('Your project limit is 2 projects! Please contact your administrator to increase it');
    expect(personalProjectLimitError(0, 0)).toBe('Personal project creation is not allowed. Please contact your administrator with questions');
  });
});

describe('initial owner of a new project', () => {
  it('is the personal namespace’s owner, and nobody in a group', () => {
    expect(initialOwnerOf({ kind: 'user', owner_id: 7 })).toBe(7);
    expect(initialOwnerOf({ kind: 'group', owner_id: null })).toBeUndefined();
  });
});
