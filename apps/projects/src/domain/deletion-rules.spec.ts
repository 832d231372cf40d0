import type { Actor } from '@glp/service-kit';
import { canRemoveProject, decideDeletion } from './deletion-rules';

const user: Actor = { kind: 'user', id: 1, username: 'u', admin: false, scopes: ['api'] };
const today = new Date('2026-05-01T10:00:00Z');

describe('project deletion rules', () => {
  it('lets Owners and administrators remove a project', () => {
    expect(canRemoveProject(user, 50)).toBe(true);
    expect(canRemoveProject(user, 40)).toBe(false);
    expect(canRemoveProject({ ...user, admin: true }, 0)).toBe(true);
  });

  it('deletes at once without a delay, marks with one, refuses to mark twice', () => {
    const fresh = { markedForDeletionOn: null, fullPath: 'a/b' };
    expect(decideDeletion(fresh, { permanentlyRemove: false, fullPath: '' }, 0, today)).toEqual({ kind: 'delete' });
    expect(decideDeletion(fresh, { permanentlyRemove: false, fullPath: '' }, 7, today)).toEqual({ kind: 'mark', on: '2026-05-08' });
    expect(decideDeletion({ ...fresh, markedForDeletionOn: '2026-05-08' }, { permanentlyRemove: false, fullPath: '' }, 7, today).kind).toBe('refuse');
  });

  it('removes a marked project at once only with permanently_remove and its exact full path', () => {
    const marked = { markedForDeletionOn: '2026-05-08', fullPath: 'a/b' };
    expect(decideDeletion(marked, { permanentlyRemove: true, fullPath: 'a/b' }, 7, today)).toEqual({ kind: 'delete' });
    expect(decideDeletion(marked, { permanentlyRemove: true, fullPath: 'a/x' }, 7, today)).toMatchObject({ kind: 'refuse' });
    expect(decideDeletion({ ...marked, markedForDeletionOn: null }, { permanentlyRemove: true, fullPath: 'a/b' }, 7, today)).toMatchObject({ kind: 'refuse' });
  });
});
