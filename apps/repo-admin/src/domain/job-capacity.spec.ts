import { claimableKinds, jobLeasesMs, jobTimeLimitMs, LOCAL_KINDS, timeLimitReached } from './job-capacity';

const capacity = { concurrency: 4, quickTimeLimitMs: 120_000, slowTimeLimitMs: 1_800_000 };

describe('job capacity', () => {
  it('gives each kind its time limit, and a lease a minute longer', () => {
    expect(['create', 'remove'].map((k) => jobTimeLimitMs(k as never, capacity))).toEqual([120_000, 120_000]);
    expect(['fork', 'import', 'mirror', 'housekeeping'].map((k) => jobTimeLimitMs(k as never, capacity))).toEqual([1_800_000, 1_800_000, 1_800_000, 1_800_000]);
    expect(jobLeasesMs(capacity)).toMatchObject({ create: 180_000, import: 1_860_000 });
    expect(timeLimitReached(3000)).toBe("the job's time limit (3000 ms) was reached");
  });

  it('keeps a slot for local jobs (create, fork, remove, housekeeping) however many imports and mirror updates wait', () => {
    expect(LOCAL_KINDS).toEqual(['create', 'remove', 'fork', 'housekeeping']);
    expect(claimableKinds([], 4)).toHaveLength(6);
    expect(claimableKinds(['import', 'mirror'], 4)).toHaveLength(6);
    expect(claimableKinds(['import', 'mirror', 'import'], 4)).toEqual(LOCAL_KINDS);
    expect(claimableKinds(['fork', 'fork', 'housekeeping'], 4)).toHaveLength(6);
    expect(claimableKinds(['import', 'import', 'import', 'create'], 4)).toEqual([]);
    expect(claimableKinds(['import'], 2)).toEqual(LOCAL_KINDS);
    // One slot: one job at a time, any kind.
    expect(claimableKinds([], 1)).toHaveLength(6);
    expect(claimableKinds(['create'], 1)).toEqual([]);
  });
});
