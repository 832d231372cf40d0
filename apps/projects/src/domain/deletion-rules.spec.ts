import type { Actor } from '@glp/service-kit';
import { canRemoveProject, decideDeletion, originalIdentifiers, restoredIdentifiers, scheduledIdentifier } from './deletion-rules';

const user: Actor = { kind: 'user', id: 1, username: 'u', admin: false, scopes: ['api'] };

describe('project deletion rules', () => {
  it('lets Owners and administrators remove a project', () => {
    expect(canRemoveProject(user, 50)).toBe(true);
    expect(canRemoveProject(user, 40)).toBe(false);
    expect(canRemoveProject({ ...user, admin: true }, 0)).toBe(true);
  });

  it('marks a project, refuses to mark it twice', () => {
    const fresh = { marked: false, fullPath: 'a/b' };
    expect(decideDeletion(fresh, { permanentlyRemove: false, fullPath: '' })).toEqual({ kind: 'mark' });
    expect(decideDeletion({ ...fresh, marked: true }, { permanentlyRemove: false, fullPath: '' }))
      .toEqual({ kind: 'refuse', message: 'Project has been already marked for deletion' });
  });

  it('removes a marked project at once only with permanently_remove and its exact full path', () => {
    const marked = { marked: true, fullPath: 'a/b-deletion_scheduled-3' };
    expect(decideDeletion(marked, { permanentlyRemove: true, fullPath: 'a/b-deletion_scheduled-3' })).toEqual({ kind: 'delete' });
    expect(decideDeletion(marked, { permanentlyRemove: true, fullPath: 'a/b' }))
      .toEqual({ kind: 'refuse', message: '`full_path` is incorrect. You must enter the complete path for the project.' });
    expect(decideDeletion({ ...marked, marked: false }, { permanentlyRemove: true, fullPath: 'a/b' }))
      .toEqual({ kind: 'refuse', message: 'Project must be marked for deletion first.' });
  });

  it('renames on marking and takes the names back on restore, suffixed when taken', () => {
    expect(scheduledIdentifier('My Project', 42)).toBe('My Project-deletion_scheduled-42');
    const marked = { name: 'My Project-deletion_scheduled-42', path: 'my-project-deletion_scheduled-42' };
    expect(originalIdentifiers(marked)).toEqual({ name: 'My Project', path: 'my-project' });
    expect(originalIdentifiers({ name: 'x-deleted-7', path: 'x-deleted-7' })).toEqual({ name: 'x', path: 'x' });
    expect(restoredIdentifiers(marked, { name: false, path: true }, 'Ab3dE')).toEqual({ name: 'My Project-Ab3dE', path: 'my-project-Ab3dE' });
  });
});
