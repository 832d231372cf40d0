import type { Actor } from '@glp/service-kit';
import { archiveChanges, canArchiveProject } from './archive-rules';

const user: Actor = { kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'] };

describe('archive rules', () => {
  it('lets Owners and administrators archive, nobody else', () => {
    expect(canArchiveProject(user, 50)).toBe(true);
    expect(canArchiveProject(user, 40)).toBe(false);
    expect(canArchiveProject(user, 0)).toBe(false);
    expect(canArchiveProject({ ...user, admin: true }, 0)).toBe(true);
    expect(canArchiveProject({ ...user, kind: 'anonymous', id: 0 }, 50)).toBe(false);
  });

  it('is idempotent: only a different state is a change', () => {
    expect(archiveChanges(false, true)).toBe(true);
    expect(archiveChanges(true, false)).toBe(true);
    expect(archiveChanges(true, true)).toBe(false);
    expect(archiveChanges(false, false)).toBe(false);
  });
});
