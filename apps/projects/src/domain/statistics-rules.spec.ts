import type { Actor } from '@glp/service-kit';
import { mayReadRunnersToken, RUNNERS_TOKEN_FORMAT } from './runners-token-rules';
import { mayReadStatistics, storedSizes } from './statistics-rules';

const user = (admin = false): Actor => ({ kind: 'user', id: 7, username: 'u', admin, scopes: ['api'] });
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };

describe('statistics and runners token rules', () => {
  it('shows statistics to Reporters and above and to administrators, never to guests or anonymous callers', () => {
    expect(mayReadStatistics(user(), 20)).toBe(true);
    expect(mayReadStatistics(user(), 50)).toBe(true);
    expect(mayReadStatistics(user(), 15)).toBe(false);
    expect(mayReadStatistics(user(), 10)).toBe(false);
    expect(mayReadStatistics(user(), 0)).toBe(false);
    expect(mayReadStatistics(user(true), 0)).toBe(true);
    expect(mayReadStatistics(anonymous, 0)).toBe(false);
  });

  it('shows the runners token to Maintainers and above and to administrators only', () => {
    expect(mayReadRunnersToken(user(), 40)).toBe(true);
    expect(mayReadRunnersToken(user(), 50)).toBe(true);
    expect(mayReadRunnersToken(user(), 30)).toBe(false);
    expect(mayReadRunnersToken(user(true), 0)).toBe(true);
    expect(mayReadRunnersToken(anonymous, 0)).toBe(false);
  });

  it("matches GitLab's runner token format", () => {
    expect(RUNNERS_TOKEN_FORMAT.test('GR1348941FzgCkZL-SQTu4Fr5TnDK')).toBe(true);
    expect(RUNNERS_TOKEN_FORMAT.test('GR1348941short')).toBe(false);
    expect(RUNNERS_TOKEN_FORMAT.test('glrt-FzgCkZL-SQTu4Fr5TnDKabcd')).toBe(false);
  });

  it('stores measured sizes as non-negative whole numbers', () => {
    expect(storedSizes({ commitCount: 3, repositorySize: -5, wikiSize: 1.7, lfsObjectsSize: Number.NaN, uploadsSize: 2 ** 60 }))
      .toEqual({ commitCount: 3, repositorySize: 0, wikiSize: 1, lfsObjectsSize: 0, uploadsSize: Number.MAX_SAFE_INTEGER });
  });
});
