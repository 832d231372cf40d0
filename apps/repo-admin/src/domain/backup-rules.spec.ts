import { systemActor, ANONYMOUS } from '@glp/service-kit';
import { isRestorableHead, mayBackUp, restoredRepositoryPath, storedFilePath } from './backup-rules';
import { hashedDiskPath } from './hashed-storage';

const secret = 'a'.repeat(32);

describe('backup rules', () => {
  it('lets only system actors back up or restore', () => {
    expect(mayBackUp(systemActor('backup'))).toBe(true);
    expect(mayBackUp(ANONYMOUS)).toBe(false);
    expect(mayBackUp({ kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] })).toBe(false);
  });

  it('accepts branch names HEAD may point at, refuses paths and options', () => {
    for (const ok of ['main', 'master', 'feature/x', 'release-1.0']) expect(isRestorableHead(ok)).toBe(true);
    for (const bad of ['', '-x', '../x', 'a..b', '/a', 'a/', 'a b', 'x.lock', 'a//b', 'x'.repeat(256)]) expect(isRestorableHead(bad)).toBe(false);
  });

  it('maps a stored file key to the path its row names, refusing anything else', () => {
    expect(storedFilePath({ projectId: 7, uploader: 'AvatarUploader', secret, fileName: 'a.png' })).toEqual({ path: `@uploads/-/system/project/avatar/7/${secret}/a.png` });
    expect(storedFilePath({ projectId: 7, uploader: 'FileUploader', secret, fileName: 'a.txt' })).toEqual({
      path: `@uploads/${hashedDiskPath(7).replace(/\.git$/, '')}/${secret}/a.txt`,
    });
    expect(storedFilePath({ projectId: 0, uploader: 'FileUploader', secret, fileName: 'a' })).toEqual({ error: 'invalid project id' });
    expect(storedFilePath({ projectId: 1, uploader: 'Other', secret, fileName: 'a' })).toHaveProperty('error');
    expect(storedFilePath({ projectId: 1, uploader: 'FileUploader', secret: 'x', fileName: 'a' })).toEqual({ error: 'invalid upload secret' });
    expect(storedFilePath({ projectId: 1, uploader: 'FileUploader', secret, fileName: '../a' })).toEqual({ error: 'invalid file name' });
  });

  it('restores a repository into the hashed path of its project', () => {
    expect(restoredRepositoryPath(3, false)).toBe(hashedDiskPath(3));
    expect(restoredRepositoryPath(3, true)).toBe(hashedDiskPath(3).replace(/\.git$/, '.wiki.git'));
  });
});
