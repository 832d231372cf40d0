import { GRANT_MAX_AGE_SECONDS } from './git-http-rules';
import { UsedGrants } from './used-grants';

describe('UsedGrants', () => {
  it('takes a grant once, for as long as its signature could still be accepted, and forgets it after', () => {
    const used = new UsedGrants();
    const t = 1_700_000_000_000;
    expect(used.take('grant-aaaa', t)).toBe(true);
    expect(used.take('grant-aaaa', t + 1)).toBe(false);
    expect(used.take('grant-bbbb', t + 1)).toBe(true);
    expect(used.take('grant-aaaa', t + 2 * GRANT_MAX_AGE_SECONDS * 1000)).toBe(false); // a grant signed ahead is still refused
    expect(used.take('grant-aaaa', t + 2 * (GRANT_MAX_AGE_SECONDS + 1) * 1000)).toBe(true); // its signature has expired by now
  });
});
