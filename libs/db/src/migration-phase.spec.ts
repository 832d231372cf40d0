import { migrationPhase } from './migrate';

describe('migrationPhase', () => {
  const off = { MIGRATE_POST_DEPLOYMENT: false };
  it('serving or `migrate` alone: the regular migrations only (a cluster mid-rollout)', () => {
    expect(migrationPhase(['node', 'main.js'], off)).toBe('regular');
    expect(migrationPhase(['node', 'main.js', 'migrate'], off)).toBe('regular');
  });
  it('`migrate --post` (the post-upgrade Job) or MIGRATE_POST_DEPLOYMENT (one node): the post-deployment ones too', () => {
    expect(migrationPhase(['node', 'main.js', 'migrate', '--post'], off)).toBe('all');
    expect(migrationPhase(['node', 'main.js'], { MIGRATE_POST_DEPLOYMENT: true })).toBe('all');
  });
});
