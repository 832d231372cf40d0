import type { DomainError } from '@glp/service-kit';
import { namespacePathErrors } from './namespace-path';
import { DEFAULT_PROJECTS_LIMIT, rightsAndLimits, validateNewUser, type NewUser } from './user-rules';

const valid: NewUser = {
  username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'long-enough', isAdmin: false, projectsLimit: 10,
  canCreateGroup: true, external: false, privateProfile: false, bio: '', location: '', publicEmail: '', websiteUrl: '',
  organization: '', jobTitle: '', skipConfirmation: true,
};

function errorsOf(u: Partial<NewUser>) {
  try {
    validateNewUser({ ...valid, ...u });
    return {};
  } catch (err) {
    return (err as DomainError).fields;
  }
}

describe('new user rules', () => {
  it('accepts a valid user', () => expect(errorsOf({})).toEqual({}));

  it('checks username format and reserved names', () => {
    expect(errorsOf({ username: '-alice' }).username?.[0]).toMatch(/Cannot start with '-'/);
    expect(errorsOf({ username: 'alice.git' }).username).toHaveLength(1);
    expect(errorsOf({ username: 'api' }).username).toEqual(['api is a reserved name']);
    expect(namespacePathErrors('a')).toEqual([]);
    expect(namespacePathErrors('first.last_name-2')).toEqual([]);
  });

  it('checks email, name, password and public email', () => {
    expect(errorsOf({ email: 'nope', name: ' ', password: 'short', publicEmail: 'other@example.com' })).toEqual({
      email: ['is invalid'],
      name: ["can't be blank"],
      password: ['is too short (minimum is 8 characters)'],
      public_email: ['is not an email you own'],
    });
  });
});

describe('rightsAndLimits (User#ensure_user_rights_and_limits)', () => {
  it('takes group and personal project creation away from external users, whatever was sent', () => {
    expect(rightsAndLimits({ external: true, projectsLimit: 50, canCreateGroup: true }, { projectsLimit: true, canCreateGroup: true }))
      .toEqual({ projectsLimit: 0, canCreateGroup: false });
  });

  it('gives an internal user what was sent, else the instance defaults', () => {
    expect(rightsAndLimits({ external: false, projectsLimit: 5, canCreateGroup: false }, { projectsLimit: true, canCreateGroup: true }))
      .toEqual({ projectsLimit: 5, canCreateGroup: false });
    expect(rightsAndLimits({ external: false, projectsLimit: 0, canCreateGroup: false }, { projectsLimit: false, canCreateGroup: false }))
      .toEqual({ projectsLimit: DEFAULT_PROJECTS_LIMIT, canCreateGroup: true });
  });
});
