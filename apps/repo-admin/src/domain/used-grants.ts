import { GRANT_MAX_AGE_SECONDS } from './git-http-rules';

/**
 * The grant ids (or signed stream ids) taken in the last `maxAgeSeconds` (older signatures are refused by their age
 * anyway): each serves one request. Kept in this process: one repo-admin process serves a storage.
 */
export class UsedGrants {
  private readonly until = new Map<string, number>();
  private sweepAt = 0;

  constructor(private readonly maxAgeSeconds = GRANT_MAX_AGE_SECONDS) {}

  /** Takes the grant; false if it was taken already. */
  take(id: string, now = Date.now()): boolean {
    if (now >= this.sweepAt) {
      for (const [k, t] of this.until) if (t <= now) this.until.delete(k);
      this.sweepAt = now + 1000;
    }
    const t = this.until.get(id);
    if (t !== undefined && t > now) return false;
    // The age check allows a signature issued up to maxAgeSeconds ago (and as far ahead): remember it for both.
    this.until.set(id, now + 2 * (this.maxAgeSeconds + 1) * 1000);
    return true;
  }
}
