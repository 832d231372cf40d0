import type { Actor } from '@glp/service-kit';
import { approvalLevel, canDeny, canManageRequests, decisionRefusal, requestRefusal, type SourceFacts } from './access-request-rules';

const user = (id: number, admin = false): Actor => ({ kind: 'user', id, username: `u${id}`, admin, scopes: ['api'] });
const anon: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const src = (kind: 'group' | 'project', callerAccess = 0, requestAccessEnabled = true): SourceFacts => ({ kind, id: 1, callerAccess, requestAccessEnabled });

describe('access request rules', () => {
  it('lets project Maintainers and group Owners (and administrators) manage requests', () => {
    expect(canManageRequests(user(1), src('project', 40))).toBe(true);
    expect(canManageRequests(user(1), src('project', 30))).toBe(false);
    expect(canManageRequests(user(1), src('group', 40))).toBe(false);
    expect(canManageRequests(user(1), src('group', 50))).toBe(true);
    expect(canManageRequests(user(1, true), src('group', 0))).toBe(true);
  });

  it('lets signed-in non-members request when requests are enabled', () => {
    expect(requestRefusal(user(1), src('project'))).toBeUndefined();
    expect(requestRefusal(user(1), src('project', 10))).toBe('already a member');
    expect(requestRefusal(user(1), src('group', 0, false))).toBe('access requests are disabled');
    expect(requestRefusal(anon, src('group'))).toBe('not signed in');
    expect(requestRefusal(user(1, true), src('project'))).toBe('an administrator');
    expect(requestRefusal(user(1, true), src('group'))).toBe('an administrator');
  });

  it('lets a requester withdraw their own request only', () => {
    expect(canDeny(user(7), src('project'), 7)).toBe(true);
    expect(canDeny(user(7), src('project'), 8)).toBe(false);
    expect(canDeny(user(7), src('project', 40), 8)).toBe(true);
  });

  it('looks the requester up before the caller when approving or denying (404 for anyone, then 403)', () => {
    expect(decisionRefusal(false, false)).toBe('not_found');
    expect(decisionRefusal(true, false)).toBe('not_found');
    expect(decisionRefusal(false, true)).toBe('forbidden');
    expect(decisionRefusal(true, true)).toBeUndefined();
  });

  it('approves as Developer by default; Owner only for groups', () => {
    expect(approvalLevel('project', 0)).toEqual({ level: 30 });
    expect(approvalLevel('group', 50)).toEqual({ level: 50 });
    expect(approvalLevel('project', 50).errors).toEqual({ access_level: ['is not included in the list'] });
    expect(approvalLevel('group', 35).errors).toEqual({ access_level: ['is not included in the list'] });
  });
});
