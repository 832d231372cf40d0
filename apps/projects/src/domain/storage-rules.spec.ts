import { storageFor } from './storage-rules';

describe('storage of a new project', () => {
  it('is the first storage unless an administrator names a configured one', () => {
    expect(storageFor(undefined, true, ['default', 'shard-2'])).toBe('default');
    expect(storageFor('shard-2', true, ['default', 'shard-2'])).toBe('shard-2');
    expect(storageFor('shard-2', false, ['default', 'shard-2'])).toBe('default');
    expect(() => storageFor('nowhere', true, ['default'])).toThrow(expect.objectContaining({ fields: { repository_storage: ['is not included in the list'] } }));
  });
});
