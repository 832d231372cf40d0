import { projectsV1, repoAdminV1 } from '@glp/proto';
import { projectStorageEntity } from './project-storage';

describe('storage record (Entities::ProjectRepositoryStorage)', () => {
  const created = new Date('2024-05-06T07:08:09.123Z');
  const project = projectsV1.Project.fromPartial({ id: 1, createdAt: created, repositoryStorage: 'default' });

  it('is one object in GitLab’s order, the disk path without .git', () => {
    const repository = repoAdminV1.Repository.fromPartial({
      projectId: 1, storage: 'default', diskPath: '@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git',
    });
    const entity = projectStorageEntity(project, repository);
    expect(Object.keys(entity)).toEqual(['disk_path', 'project_id', 'repository_storage', 'created_at']);
    expect(entity).toEqual({
      disk_path: '@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b', project_id: 1,
      repository_storage: 'default', created_at: '2024-05-06T07:08:09.123Z',
    });
  });

  it('names the hashed path the repository will have while it is not created yet', () => {
    expect(projectStorageEntity(project, undefined).disk_path).toBe('@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b');
  });
});
