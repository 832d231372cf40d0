/**
 * How the pre-receive check sends pushed commits to push-rules' CheckPush: at most `PUSH_RULES_BATCH_COMMITS` commits a
 * call, and a call stays under `PUSH_RULES_BATCH_BYTES` of commit data (messages, names, paths) so it fits gRPC's
 * default 4 MiB message limit however long the messages are (a single larger commit still goes alone).
 */
export const PUSH_RULES_BATCH_COMMITS = 200;
export const PUSH_RULES_BATCH_BYTES = 2 * 1024 * 1024;

/** Splits `items` (in order) into runs of at most `maxItems` items whose `sizeOf` sum stays within `maxBytes`. */
export function splitBatches<T>(items: readonly T[], sizeOf: (item: T) => number, maxItems = PUSH_RULES_BATCH_COMMITS, maxBytes = PUSH_RULES_BATCH_BYTES): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length && (current.length >= maxItems || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/** The distinct new tips of a push (created and updated refs; deletions have none), in the order of the changes. */
export function newTips(changes: readonly { newRev: string }[]): string[] {
  const tips = new Set<string>();
  for (const c of changes) if (!/^0+$/.test(c.newRev)) tips.add(c.newRev);
  return [...tips];
}
