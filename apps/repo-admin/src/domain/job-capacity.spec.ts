import { claimableKinds, jobLeasesMs, jobTimeLimitMs, LOCAL_KINDS, timeLimitReached } from './job-capacity';

const capacity = { concurrency: 4, quickConcurrency: 16, quickTimeLimitMs: 120_000, slowTimeLimitMs: 1_800_000 };

describe('job capacity', () => {
  it('gives each kind its time limit, and a lease a minute longer', () => {
    expect(['create', 'remove'].map((k) => jobTimeLimitMs(k as never, capacity))).toEqual([120_000, 120_000]);
    expect(['fork', 'import', 'mirror', 'housekeeping'].map((k) => jobTimeLimitMs(k as never, capacity))).toEqual([1_800_000, 1_800_000, 1_800_000, 1_800_000]);
    expect(jobLeasesMs(capacity)).toMatchObject({ create: 180_000, import: 1_860_000 });
    expect(timeLimitReached(3000)).toBe("the job's time limit (3000 ms) was reached");
  });

  it('keeps a slot for fork copies and housekeeping however many imports and mirror updates wait', () => {
    expect(LOCAL_KINDS).toEqual(['create', 'remove', 'fork', 'housekeeping']);
    const four = { concurrency: 4, quickConcurrency: 2 };
    expect(claimableKinds([], four)).toHaveLength(6);
    expect(claimableKinds(['import', 'mirror'], four)).toHaveLength(6);
    expect(claimableKinds(['import', 'mirror', 'import'], four)).toEqual(LOCAL_KINDS);
    expect(claimableKinds(['fork', 'fork', 'housekeeping'], four)).toHaveLength(6);
    expect(claimableKinds(['import', 'import', 'import', 'fork'], four)).toEqual(['create', 'remove']);
    expect(claimableKinds(['import'], { concurrency: 2, quickConcurrency: 2 })).toEqual(LOCAL_KINDS);
    // One slot: one of the slow kinds at a time, any of them.
    expect(claimableKinds([], { concurrency: 1, quickConcurrency: 1 })).toHaveLength(6);
    expect(claimableKinds(['fork'], { concurrency: 1, quickConcurrency: 1 })).toEqual(['create', 'remove']);
  });

  it('runs creates and removals in slots of their own: slow jobs never hold them up, and they never take a slow slot', () => {
    const capacity = { concurrency: 2, quickConcurrency: 3 };
    // Every slow slot taken: creates and removals still go.
    expect(claimableKinds(['import', 'housekeeping'], capacity)).toEqual(['create', 'remove']);
    // Quick slots full: only slow kinds, and none of theirs is used up by creates.
    expect(claimableKinds(['create', 'create', 'remove'], capacity)).toEqual(['fork', 'import', 'mirror', 'housekeeping']);
    expect(claimableKinds(['create', 'create', 'remove', 'fork', 'import'], capacity)).toEqual([]);
  });
});
