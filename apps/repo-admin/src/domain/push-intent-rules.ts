import { createHash } from 'node:crypto';
import { isBlankRev, type RefUpdate } from './ref-updates';

/**
 * The event id of one event of a push: a name-based UUID (version 5 layout, SHA-1 of the push's id and the event's key).
 * Post-receive and the recovery of an interrupted push build the same ids, so the outbox keeps one of each.
 */
export function pushEventId(pushId: string, key: string): string {
  const h = createHash('sha1').update(`glp-push-event\0${pushId}\0${key}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * The ref updates of an interrupted push that landed: the ref now points at the update's new value (a deletion: the ref
 * is gone). A push git refused or aborted after pre-receive left its refs where they were; a ref moved again since by
 * another push no longer tells, and its update is not reported twice.
 */
export function landedUpdates(updates: readonly RefUpdate[], targetOf: (ref: string) => string | undefined): RefUpdate[] {
  return updates.filter((u) => {
    const now = targetOf(u.ref);
    return isBlankRev(u.newRev) ? now === undefined : now === u.newRev;
  });
}
