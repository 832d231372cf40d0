import { consumerGroupFor, servesStorage, storageOf } from './storage-rules';

describe('storage routing', () => {
  it('reads an unnamed storage as "default" and keeps only its own repositories', () => {
    expect(storageOf('')).toBe('default');
    expect(servesStorage('default', '')).toBe(true);
    expect(servesStorage('default', 'shard-2')).toBe(false);
    expect(servesStorage('shard-2', 'shard-2')).toBe(true);
  });

  it('gives each storage its own consumer group unless one is configured', () => {
    expect(consumerGroupFor('', 'shard-2')).toBe('repo-admin-shard-2');
    expect(consumerGroupFor('custom', 'shard-2')).toBe('custom');
  });
});
