import { actionName, eventListFilter, pushCommitTitle, pushEventOf, recordsJoin, refName, type RefPush } from './project-event-rules';

const ZERO = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const push = (over: Partial<RefPush> = {}): RefPush => ({
  refType: 'branch', ref: 'refs/heads/feature', before: A, after: B, commitMessages: ['first\n\nbody', 'second line\nmore'],
  totalCommitsCount: 2, refsInPush: 1, pusherId: 7, pushedAt: new Date('2026-01-02T03:04:05.678Z'), ...over,
});
const input = { action: '', targetType: '', before: '', after: '', sort: '' };

describe('action names (Event#action_name)', () => {
  it('names pushes by what happened to the ref', () => {
    expect(actionName('pushed', { action: 'created' }, false)).toBe('pushed new');
    expect(actionName('pushed', { action: 'pushed' }, false)).toBe('pushed to');
    expect(actionName('pushed', { action: 'removed' }, false)).toBe('deleted');
  });

  it('names membership changes and project creation, "imported" for a project imported from a URL', () => {
    expect(actionName('joined', null, false)).toBe('joined');
    expect(actionName('left', null, true)).toBe('left');
    expect(actionName('created', null, false)).toBe('created');
    expect(actionName('created', null, true)).toBe('imported');
  });
});

describe('push payloads (PushEventPayloadService)', () => {
  it('keeps the newest commit’s first line, the full commit count, the short ref and both revisions of a push', () => {
    expect(pushEventOf(push())).toEqual({
      payload: { commitCount: 2, action: 'pushed', refType: 'branch', commitFrom: A, commitTo: B, ref: 'feature', commitTitle: 'second line', refCount: null },
      bulkKey: null,
    });
  });

  it('has no commit_from for a created ref and no commit_to for a removed one', () => {
    expect(pushEventOf(push({ before: ZERO })).payload).toMatchObject({ action: 'created', commitFrom: null, commitTo: B });
    expect(pushEventOf(push({ after: ZERO, commitMessages: [], totalCommitsCount: 0 })).payload)
      .toMatchObject({ action: 'removed', commitFrom: A, commitTo: null, commitTitle: null, commitCount: 0 });
    expect(pushEventOf(push({ refType: 'tag', ref: 'refs/tags/v1.0', before: ZERO })).payload).toMatchObject({ refType: 'tag', ref: 'v1.0', action: 'created' });
  });

  it('writes one bulk event for more than 3 refs of a kind and action: ref_count, no commits, the same key for every ref', () => {
    const a = pushEventOf(push({ refsInPush: 4, ref: 'refs/heads/a', before: ZERO }));
    const b = pushEventOf(push({ refsInPush: 4, ref: 'refs/heads/b', before: ZERO }));
    expect(a.payload).toEqual({ commitCount: 0, action: 'created', refType: 'branch', commitFrom: null, commitTo: null, ref: null, commitTitle: null, refCount: 4 });
    expect(a.bulkKey).not.toBeNull();
    expect(b.bulkKey).toBe(a.bulkKey);
    expect(pushEventOf(push({ refsInPush: 4, refType: 'tag' })).bulkKey).not.toBe(a.bulkKey);
    expect(pushEventOf(push({ refsInPush: 3 })).bulkKey).toBeNull();
  });

  it('cuts a commit title at the first line, stripped, to 70 characters as Rails truncate does', () => {
    expect(pushCommitTitle(undefined)).toBeNull();
    expect(pushCommitTitle('  spaced title  \nbody')).toBe('spaced title');
    expect(pushCommitTitle('x'.repeat(70))).toBe('x'.repeat(70));
    expect(pushCommitTitle('x'.repeat(71))).toBe(`${'x'.repeat(67)}...`);
    expect([...pushCommitTitle('é'.repeat(100))!]).toHaveLength(70);
  });

  it('names refs without their prefix', () => {
    expect(refName('refs/heads/feature/x')).toBe('feature/x');
    expect(refName('refs/tags/v1')).toBe('v1');
  });
});

describe('who joins (ProjectMember#post_create_hook)', () => {
  it('records no join for the holder of the personal namespace', () => {
    expect(recordsJoin(7, 7)).toBe(false);
    expect(recordsJoin(7, 8)).toBe(true);
    expect(recordsJoin(null, 8)).toBe(true);
  });
});

describe('listing filters (EventsFinder)', () => {
  it('orders by id, newest first unless asc', () => {
    expect(eventListFilter(input, true).order).toBe('desc');
    expect(eventListFilter({ ...input, sort: 'asc' }, true).order).toBe('asc');
  });

  it('keeps events before the start of the `before` day and after the end of the `after` day (UTC)', () => {
    const f = eventListFilter({ ...input, before: '2026-03-10', after: '2026-03-01' }, true);
    expect(f.createdBefore).toEqual(new Date('2026-03-10T00:00:00Z'));
    expect(f.createdFrom).toEqual(new Date('2026-03-02T00:00:00Z'));
    expect(() => eventListFilter({ ...input, before: '2026-02-30' }, true)).toThrow('before is invalid');
    expect(() => eventListFilter({ ...input, after: 'soon' }, true)).toThrow('after is invalid');
  });

  it('matches nothing for a target type or an action never recorded here', () => {
    expect(eventListFilter({ ...input, targetType: 'issue' }, true).none).toBe(true);
    expect(eventListFilter({ ...input, action: 'merged' }, true).none).toBe(true);
    expect(eventListFilter({ ...input, action: 'joined' }, true)).toMatchObject({ none: false, action: 'joined' });
  });

  it('leaves pushes out for a caller who may not read the code', () => {
    expect(eventListFilter(input, false)).toMatchObject({ none: false, withoutPushes: true });
    expect(eventListFilter({ ...input, action: 'pushed' }, false).none).toBe(true);
    expect(eventListFilter(input, true).withoutPushes).toBe(false);
  });
});
