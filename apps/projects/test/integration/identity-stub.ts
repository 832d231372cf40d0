import { identityV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';

/**
 * identity as projects' integration tests see it: no namespace beyond projects' own replica, nobody in a group, every
 * user active with room for projects (the creator's projects_limit), no group members.
 */
export function noGroupsIdentity() {
  return {
    getNamespace: jest.fn(async () => {
      throw new DomainError('not_found', 'Namespace');
    }),
    getUserGroupAccess: jest.fn(async () => ({ groups: [] })),
    getUser: jest.fn(async (r: identityV1.GetUserRequest) => {
      if (r.selector?.$case !== 'id') throw new DomainError('not_found', 'User');
      return { user: identityV1.User.fromPartial({ id: r.selector.value, username: `user${r.selector.value}`, state: 'active', projectsLimit: 100000 }) };
    }),
    listGroupMembers: jest.fn(async () => ({ members: [], total: 0 })),
  };
}
