import { ANONYMOUS, systemActor, type Actor } from '@glp/service-kit';
import { HOUSEKEEPING_LEASE_TAKEN, isHousekeepingTask, mayAdminProject, mayReadAllResources } from './repository-access';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 5, username: 'u', admin: false, scopes: ['api'], ...over });

describe('repository administration rules', () => {
  it('lets only administrators read snapshots', () => {
    expect(mayReadAllResources(user({ admin: true }))).toBe(true);
    expect(mayReadAllResources(user())).toBe(false);
    expect(mayReadAllResources(ANONYMOUS)).toBe(false);
    expect(mayReadAllResources(systemActor('x'))).toBe(false); // a service is no user
  });

  it('lets Maintainers and administrators administer a project', () => {
    expect(mayAdminProject(user(), 40)).toBe(true);
    expect(mayAdminProject(user(), 50)).toBe(true);
    expect(mayAdminProject(user(), 30)).toBe(false);
    expect(mayAdminProject(user({ admin: true }), 0)).toBe(true);
    expect(mayAdminProject(ANONYMOUS, 50)).toBe(false);
  });

  it('knows GitLab’s housekeeping tasks and lease message', () => {
    expect(isHousekeepingTask('eager')).toBe(true);
    expect(isHousekeepingTask('prune')).toBe(true);
    expect(isHousekeepingTask('gc')).toBe(false);
    expect(HOUSEKEEPING_LEASE_TAKEN).toBe('Somebody already triggered housekeeping for this resource in the past 1440 minutes');
  });
});
