import { StringDecoder } from 'node:string_decoder';
import type { repositoryEventsV1 } from '@glp/proto';

/**
 * A commit message longer than this is carried as GitLab carries a message too big to show: its subject line and
 * `--commit message is too big` (`Gitlab::Git::Commit#message_from_gitaly_body`, whose threshold is larger: ours keeps
 * 20 such commits well inside one Kafka record).
 */
export const PUSH_COMMIT_MESSAGE_MAX_BYTES = 16 * 1024;
/** GitLab's marker of a message too big to carry. */
export const MESSAGE_TOO_BIG = '--commit message is too big';
/** The largest encoded Push or TagPush: under the outbox's MAX_EVENT_BYTES with room for the envelope. */
export const PUSH_EVENT_MAX_BYTES = 384 * 1024;
/** A subject line, an author's name or e-mail is cut to this many bytes (git sets no bound on them). */
const LINE_MAX_BYTES = 1024;
/** Protobuf's cost of a repeated string beyond its bytes: tag and length, at most 4 bytes under 2 MiB. */
const PATH_OVERHEAD = 4;

type PushLike = Pick<repositoryEventsV1.Push, 'commits'>;

/** The longest prefix of `s` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s) <= maxBytes) return s;
  return new StringDecoder('utf8').write(Buffer.from(s).subarray(0, maxBytes));
}

/** The message a push event carries: as it is, or its subject and GitLab's marker when it is longer than the bound. */
export function boundedMessage(message: string): string {
  if (Buffer.byteLength(message) <= PUSH_COMMIT_MESSAGE_MAX_BYTES) return message;
  const subject = truncateUtf8(message.split(/\r?\n/, 1)[0]!, LINE_MAX_BYTES);
  return `${subject}\n\n${MESSAGE_TOO_BIG}`.trim();
}

/**
 * A Push or TagPush within PUSH_EVENT_MAX_BYTES, whatever was pushed: messages bounded (boundedMessage), author names
 * and e-mails cut, then the changed files kept newest commit first while they fit (the commits and their count stay);
 * should the event still be too large, its oldest commits go. `sizeOf` is the event's encoded size.
 */
export function boundPushEvent<T extends PushLike>(event: T, sizeOf: (e: T) => number): T {
  const commits = event.commits.map((c) => ({
    ...c,
    message: boundedMessage(c.message),
    authorName: truncateUtf8(c.authorName, LINE_MAX_BYTES),
    authorEmail: truncateUtf8(c.authorEmail, LINE_MAX_BYTES),
  }));
  let bounded: T = { ...event, commits: commits.map((c) => ({ ...c, added: [], modified: [], removed: [] })) };
  let room = PUSH_EVENT_MAX_BYTES - sizeOf(bounded);
  for (let i = commits.length - 1; i >= 0; i--) {
    const c = commits[i]!;
    const kept = { added: [] as string[], modified: [] as string[], removed: [] as string[] };
    for (const kind of ['added', 'modified', 'removed'] as const) {
      for (const file of c[kind]) {
        const cost = Buffer.byteLength(file) + PATH_OVERHEAD;
        if (cost > room) break;
        room -= cost;
        kept[kind].push(file);
      }
    }
    bounded.commits[i] = { ...bounded.commits[i]!, ...kept };
  }
  while (bounded.commits.length > 1 && sizeOf(bounded) > PUSH_EVENT_MAX_BYTES) bounded = { ...bounded, commits: bounded.commits.slice(1) };
  return bounded;
}
