import type { Actor } from '@glp/service-kit';
import { canStar, parseStarrerSearch, searchTerms } from './star-rules';

const user: Actor = { kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'] };

describe('star rules', () => {
  it('lets only signed-in users star', () => {
    expect(canStar(user)).toBe(true);
    expect(canStar({ ...user, kind: 'anonymous', id: 0 })).toBe(false);
    expect(canStar({ ...user, kind: 'system', id: 0, admin: true })).toBe(false);
  });

  it('splits a query like Gitlab::SQL::Pattern: words, then quoted phrases', () => {
    expect(searchTerms('jane "van der" smith')).toEqual(['jane', 'smith', 'van der']);
    expect(searchTerms('  a   b ')).toEqual(['a', 'b']);
    expect(searchTerms('""')).toEqual([]);
  });

  it('parses the starrer search as User.search (no minimum length, @ stripped, lower-cased, LIKE escaped)', () => {
    expect(parseStarrerSearch('')).toBeUndefined();
    expect(parseStarrerSearch('   ')).toBeUndefined();
    expect(parseStarrerSearch('@')).toEqual({ kind: 'none' });
    expect(parseStarrerSearch('@Al')).toEqual({ kind: 'match', exact: 'al', patterns: ['%al%'] });
    expect(parseStarrerSearch('Jane  Smith')).toEqual({ kind: 'match', exact: 'jane  smith', patterns: ['%jane%', '%smith%'] });
    expect(parseStarrerSearch('50%_x\\')).toEqual({ kind: 'match', exact: '50%_x\\', patterns: ['%50\\%\\_x\\\\%'] });
    expect(parseStarrerSearch('""')).toEqual({ kind: 'match', exact: '""', patterns: ['""'] });
  });
});
