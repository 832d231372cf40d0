import type { Actor } from '@glp/service-kit';
import { memberUpdateRefusal } from './member-rules';

const user = (id: number, admin = false): Actor => ({ kind: 'user', id, username: `u${id}`, admin, scopes: ['api'] });

describe('member rules: PUT /projects/:id/members/:user_id (lib/api/members.rb order)', () => {
  it('answers 404 for a user who is not a member, whoever asks, before checking the caller', () => {
    expect(memberUpdateRefusal(user(1), 10, undefined)).toBe('not_found');
    expect(memberUpdateRefusal(user(1), 40, undefined)).toBe('not_found');
    expect(memberUpdateRefusal(user(1, true), 0, undefined)).toBe('not_found');
  });

  it('then lets Maintainers change members below Owner, Owners and administrators anyone', () => {
    expect(memberUpdateRefusal(user(1), 30, { userId: 2, level: 20 })).toBe('forbidden');
    expect(memberUpdateRefusal(user(1), 40, { userId: 2, level: 20 })).toBeUndefined();
    expect(memberUpdateRefusal(user(1), 40, { userId: 2, level: 50 })).toBe('forbidden');
    expect(memberUpdateRefusal(user(1), 50, { userId: 2, level: 50 })).toBeUndefined();
    expect(memberUpdateRefusal(user(1, true), 0, { userId: 2, level: 50 })).toBeUndefined();
  });
});
