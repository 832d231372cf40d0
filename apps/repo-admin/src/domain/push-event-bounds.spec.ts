import { repositoryEventsV1 } from '@glp/proto';
import { boundedMessage, boundPushEvent, MESSAGE_TOO_BIG, PUSH_COMMIT_MESSAGE_MAX_BYTES, PUSH_EVENT_MAX_BYTES, truncateUtf8 } from './push-event-bounds';

const { Push } = repositoryEventsV1;
const sizeOf = (p: repositoryEventsV1.Push) => Push.encode(p).finish().length;
const commit = (i: number, message: string, files: string[] = []) =>
  repositoryEventsV1.PushCommit.fromPartial({ id: String(i).padStart(40, '0'), message, title: message.split('\n')[0], authorName: 'A', authorEmail: 'a@example.com', added: files });

describe('boundPushEvent', () => {
  it('leaves an ordinary push as it is', () => {
    const push = Push.fromPartial({ projectId: 1, ref: 'refs/heads/main', commits: [commit(1, 'first\n\nbody', ['a.txt']), commit(2, 'second', ['b.txt'])], totalCommitsCount: 2 });
    expect(boundPushEvent(push, sizeOf)).toEqual(push);
  });

  it('carries a 3 MB message as its subject and GitLab\'s marker', () => {
    const huge = `huge commit\n\n${'x'.repeat(3 * 1024 * 1024)}`;
    const push = Push.fromPartial({ projectId: 1, commits: [commit(1, huge)], totalCommitsCount: 1 });
    const bounded = boundPushEvent(push, sizeOf);
    expect(bounded.commits[0]).toMatchObject({ message: `huge commit\n\n${MESSAGE_TOO_BIG}`, title: 'huge commit' });
    expect(sizeOf(bounded)).toBeLessThan(1024);
    // A message at the bound is kept whole.
    const atBound = 'y'.repeat(PUSH_COMMIT_MESSAGE_MAX_BYTES);
    expect(boundedMessage(atBound)).toBe(atBound);
    // One huge line: cut to 1 KiB.
    expect(boundedMessage('z'.repeat(PUSH_COMMIT_MESSAGE_MAX_BYTES + 1))).toBe(`${'z'.repeat(1024)}\n\n${MESSAGE_TOO_BIG}`);
  });

  it('keeps 20 commits of 3 MB messages and 50,000 added files each within PUSH_EVENT_MAX_BYTES, newest files first', () => {
    const files = Array.from({ length: 50_000 }, (_, i) => `dir/${'n'.repeat(80)}/file-${i}.txt`);
    const commits = Array.from({ length: 20 }, (_, i) => commit(i, `c${i}\n\n${'m'.repeat(3 * 1024 * 1024)}`, files));
    const push = Push.fromPartial({ projectId: 1, ref: 'refs/heads/main', commits, totalCommitsCount: 12345 });
    const bounded = boundPushEvent(push, sizeOf);
    expect(sizeOf(bounded)).toBeLessThanOrEqual(PUSH_EVENT_MAX_BYTES);
    expect(bounded.totalCommitsCount).toBe(12345);
    expect(bounded.commits.map((c) => c.id)).toEqual(commits.map((c) => c.id));
    expect(bounded.commits.every((c) => c.message === `c${c.id.replace(/^0+/, '') || 0}\n\n${MESSAGE_TOO_BIG}`)).toBe(true);
    // The newest commit keeps files, in git's order; the oldest ones give theirs up first.
    const newest = bounded.commits[19]!;
    expect(newest.added.length).toBeGreaterThan(1000);
    expect(newest.added).toEqual(files.slice(0, newest.added.length));
    expect(bounded.commits[0]!.added).toEqual([]);
  });

  it('cuts UTF-8 text on a character boundary', () => {
    expect(truncateUtf8('héé', 2)).toBe('h');
    expect(truncateUtf8('héé', 3)).toBe('hé');
    expect(truncateUtf8('abc', 10)).toBe('abc');
  });
});
