import { newTips, splitBatches } from './push-rules-batches';

describe('splitBatches', () => {
  it('cuts at the item count and at the byte budget, keeping order; an oversized item goes alone', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(splitBatches(items, () => 1, 3, 100)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(splitBatches([5, 5, 5, 50, 5], (n) => n, 10, 12)).toEqual([[5, 5], [5], [50], [5]]);
    expect(splitBatches([], () => 1)).toEqual([]);
  });
});

describe('newTips', () => {
  it('the distinct new revisions, without deletions', () => {
    const a = 'a'.repeat(40);
    const z = '0'.repeat(40);
    expect(newTips([{ newRev: a }, { newRev: z }, { newRev: a }, { newRev: 'b'.repeat(40) }])).toEqual([a, 'b'.repeat(40)]);
  });
});
