import type { Actor } from '@glp/service-kit';
import { canForkProject, featureAvailable, forkSettings, forkVisibility, nextImportStatus } from './fork-rules';
import { ACCESS } from './visibility';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'], ...over });
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };

describe('fork rules', () => {
  it('lets a signed-in reader fork a public or internal project, and Reporters any project they read', () => {
    expect(canForkProject(user(), { visibility: 'public', settings: {}, access: 0 })).toBe(true);
    expect(canForkProject(user(), { visibility: 'internal', settings: {}, access: 0 })).toBe(true);
    expect(canForkProject(user({ external: true }), { visibility: 'internal', settings: {}, access: 0 })).toBe(false);
    expect(canForkProject(user(), { visibility: 'private', settings: {}, access: ACCESS.GUEST })).toBe(false);
    expect(canForkProject(user(), { visibility: 'private', settings: {}, access: ACCESS.REPORTER })).toBe(true);
    expect(canForkProject(user({ admin: true }), { visibility: 'private', settings: {}, access: 0 })).toBe(true);
    expect(canForkProject(anonymous, { visibility: 'public', settings: {}, access: 0 })).toBe(false);
  });

  it('refuses when forking or the repository is not available to the caller', () => {
    expect(canForkProject(user({ admin: true }), { visibility: 'public', settings: { forkingAccessLevel: 'disabled' }, access: 0 })).toBe(false);
    expect(canForkProject(user(), { visibility: 'public', settings: { forkingAccessLevel: 'private' }, access: 0 })).toBe(false);
    expect(canForkProject(user(), { visibility: 'public', settings: { forkingAccessLevel: 'private' }, access: ACCESS.REPORTER })).toBe(true);
    expect(canForkProject(user(), { visibility: 'public', settings: { repositoryAccessLevel: 'private' }, access: ACCESS.GUEST })).toBe(false);
    expect(canForkProject(user(), { visibility: 'public', settings: { repositoryAccessLevel: 'disabled' }, access: ACCESS.OWNER })).toBe(false);
    expect(featureAvailable('enabled', anonymous, 0, ACCESS.GUEST)).toBe(true);
  });

  it('gives the fork the lowest of the source, target namespace and requested visibility', () => {
    expect(forkVisibility('public', 'public')).toBe('public');
    expect(forkVisibility('public', 'internal')).toBe('internal');
    expect(forkVisibility('internal', 'public', 'public')).toBe('internal');
    expect(forkVisibility('public', 'public', 'private')).toBe('private');
    expect(forkVisibility('private', 'public', 'public')).toBe('private');
  });

  it('copies feature levels and the listed settings, never the rest', () => {
    expect(forkSettings({ issuesAccessLevel: 'private', ciConfigPath: 'ci.yml', requestAccessEnabled: false, mergeMethod: 'ff' }, true))
      .toEqual({ issuesAccessLevel: 'private', ciConfigPath: 'ci.yml', mrDefaultTargetSelf: true });
    expect(forkSettings({ wikiAccessLevel: 'disabled' })).toEqual({ wikiAccessLevel: 'disabled' });
  });

  it('moves import_status only forward', () => {
    expect(nextImportStatus('scheduled', 'started')).toBe('started');
    expect(nextImportStatus('started', 'finished')).toBe('finished');
    expect(nextImportStatus('scheduled', 'finished')).toBe('finished');
    expect(nextImportStatus('started', 'failed')).toBe('failed');
    expect(nextImportStatus('finished', 'started')).toBeUndefined();
    expect(nextImportStatus('finished', 'failed')).toBeUndefined();
    expect(nextImportStatus('failed', 'finished')).toBeUndefined();
    expect(nextImportStatus('none', 'started')).toBeUndefined();
    expect(nextImportStatus('started', 'started')).toBeUndefined();
  });
});
