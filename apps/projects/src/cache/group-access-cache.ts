import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import { registry, type GroupAccessChange } from '@glp/service-kit';

const lookups = new Counter({
  name: 'glp_projects_group_access_lookups_total',
  help: "Users' group levels looked up, by result: hit (kept), miss (asked of identity and kept), shared (joined a look-up in flight), bypass (not kept: the invalidation subscription is down, or the cache is off)",
  labelNames: ['result'],
  registers: [registry],
});
const counted = { hit: lookups.labels('hit'), miss: lookups.labels('miss'), shared: lookups.labels('shared'), bypass: lookups.labels('bypass') };

/** A user's levels in every group they have access to (group namespace id → level). */
export type GroupLevels = ReadonlyMap<number, number>;

export interface GroupAccessCacheOptions {
  /** How long a user's levels are kept (GROUP_ACCESS_CACHE_TTL_MS): the bound on a lost invalidation; 0 keeps none. */
  ttlMs: number;
  /** Group levels kept in all, summed over users (an entry of n groups counts n + 1). */
  maxLevels: number;
}

/**
 * Users' group levels (identity's GetUserGroupAccess for every group), kept in this process for `ttlMs` so that a
 * signed-in user's reads and listings do not each ask identity (a call cost identity 0.32–0.46 ms and PostgreSQL
 * ~0.45 ms of CPU, bench/README.md). identity publishes whose levels changed after each commit and before it answers
 * (groupAccessInvalidationChannel); `invalidate` drops them. Levels are kept only while that subscription is live
 * (`setLive`): without it a change could go unseen, so every look-up asks identity, as before the cache. A look-up
 * that was in flight when an invalidation came is answered but not kept, and later callers do not join it.
 */
export class GroupAccessCache {
  private readonly lru: LRUCache<number, GroupLevels> | undefined;
  private readonly inFlight = new Map<number, { generation: number; levels: Promise<GroupLevels> }>();
  /** Bumped by every invalidation and every change of the subscription's state. */
  private generation = 0;
  private live = false;

  constructor(opts: GroupAccessCacheOptions) {
    this.lru = opts.ttlMs > 0 && opts.maxLevels > 0
      ? new LRUCache<number, GroupLevels>({ maxSize: opts.maxLevels, sizeCalculation: (levels) => levels.size + 1, ttl: opts.ttlMs, ttlAutopurge: false })
      : undefined;
  }

  /** False when configured to keep nothing (then there is nothing to subscribe for). */
  get enabled(): boolean {
    return this.lru !== undefined;
  }

  /** True when look-ups may be kept: the cache is on and the invalidation subscription is live. */
  get keeping(): boolean {
    return this.lru !== undefined && this.live;
  }

  /** The user's levels: kept ones, the ones being asked for already, or `fetch`ed now (and kept). */
  async levelsOf(userId: number, fetch: () => Promise<GroupLevels>): Promise<GroupLevels> {
    if (!this.lru || !this.live) {
      counted.bypass.inc();
      return fetch();
    }
    const kept = this.lru.get(userId);
    if (kept) {
      counted.hit.inc();
      return kept;
    }
    const generation = this.generation;
    const pending = this.inFlight.get(userId);
    if (pending && pending.generation === generation) {
      counted.shared.inc();
      return pending.levels;
    }
    counted.miss.inc();
    const levels = fetch();
    const entry = { generation, levels };
    this.inFlight.set(userId, entry);
    try {
      const answer = await levels;
      if (this.generation === generation) this.lru.set(userId, answer);
      return answer;
    } finally {
      if (this.inFlight.get(userId) === entry) this.inFlight.delete(userId);
    }
  }

  /** identity's message: these users' (or everyone's) levels changed. */
  invalidate(change: GroupAccessChange): void {
    this.generation++;
    if ('all' in change) this.lru?.clear();
    else for (const id of change.users) this.lru?.delete(id);
  }

  /** The subscription came up (true: kept levels may have missed messages while it was down, so none are kept) or went down. */
  setLive(live: boolean): void {
    this.generation++;
    this.live = live;
    this.lru?.clear();
  }

  /** Users kept (tests). */
  get size(): number {
    return this.lru?.size ?? 0;
  }
}
