/**
 * kafkajs 2.2.4 (its latest release) keeps every broker connection busy while it is idle: after each response its
 * RequestQueue calls `scheduleCheckPendingRequests`, which, with nothing pending and no throttle, arms
 * `setTimeout(check, <negative>)`. The check finds nothing, arms it again, and so on: a 1 ms timer loop per
 * connection for the life of the process (tulios/kafkajs#1556, #1604, #1704; the fix of PR #1768's review, unmerged).
 * Every service here holds a producer and/or a consumer, so each one burned ~3% of a core doing nothing (1,700 epoll
 * wake-ups a second when idle, measured with `strace -c`): the eight services 21.8% of a core together, 7.7% with this
 * fix, on the same 2 cores that serve requests (bench/README.md).
 *
 * This replaces that one method, on kafkajs 2.2.4 only (the lock file pins it), with the upstream fix: schedule a check
 * only when a request is waiting or a throttle is to be waited out. Nothing else changes: a request that cannot go out
 * at once is queued by `push`, which schedules the check (pending is then non-empty), and each response runs the check
 * itself (`fulfillRequest`). Applied once, when this module is loaded (by `kafka.ts`, before any client exists).
 */
import { createRequire } from 'node:module';

/** The kafkajs release whose RequestQueue has the loop (and whose internals this fix knows). */
export const KAFKAJS_LOOP_VERSION = '2.2.4';
/** kafkajs's own interval for re-checking a queue that has requests waiting (`CHECK_PENDING_REQUESTS_INTERVAL`). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** The RequestQueue class of the installed kafkajs, and its version. */
export function kafkajsRequestQueue(): { version: string; RequestQueue: { prototype: RequestQueueInternals } } {
  const load = createRequire(require.resolve('kafkajs'));
  const { version } = load('./package.json') as { version: string };
  const RequestQueue = load('./src/network/requestQueue') as { prototype: RequestQueueInternals };
  return { version, RequestQueue };
}

/** The fixed method: a check is scheduled only when something waits (a queued request, or the end of a throttle). */
function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  let delay: number;
  if (this.pending.length > 0) delay = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL;
  else if (untilUnthrottled > 0) delay = untilUnthrottled;
  else return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, delay);
}

let applied: boolean | undefined;

/** Installs the fix into kafkajs's RequestQueue (idempotent). False when the installed kafkajs is not 2.2.4: left alone. */
export function fixKafkajsIdleLoop(): boolean {
  if (applied !== undefined) return applied;
  const { version, RequestQueue } = kafkajsRequestQueue();
  applied = version === KAFKAJS_LOOP_VERSION;
  if (applied) RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  return applied;
}

fixKafkajsIdleLoop();
