import { landedUpdates, pushEventId } from './push-intent-rules';
import { BLANK_SHA1 } from './ref-updates';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('push intent rules', () => {
  it('derives the same UUID for the same push and event, another for any other', () => {
    const id = pushEventId('f00d', 'refs/heads/main');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pushEventId('f00d', 'refs/heads/main')).toBe(id);
    expect(pushEventId('f00e', 'refs/heads/main')).not.toBe(id);
    expect(pushEventId('f00d', 'refs/heads/other')).not.toBe(id);
  });

  it('keeps the updates whose ref is where the push put it', () => {
    const refs = new Map<string, string>([['refs/heads/moved', B], ['refs/heads/stale', A], ['refs/tags/kept', A]]);
    const updates = [
      { oldRev: A, newRev: B, ref: 'refs/heads/moved' },
      { oldRev: A, newRev: B, ref: 'refs/heads/stale' },
      { oldRev: A, newRev: BLANK_SHA1, ref: 'refs/heads/deleted' },
      { oldRev: A, newRev: BLANK_SHA1, ref: 'refs/tags/kept' },
    ];
    expect(landedUpdates(updates, (r) => refs.get(r)).map((u) => u.ref)).toEqual(['refs/heads/moved', 'refs/heads/deleted']);
  });
});
