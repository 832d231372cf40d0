import path from 'node:path';
import { sleep } from '@glp/events';
import type { Actor } from '@glp/service-kit';
import { BareRepository } from '../disk/bare-repository';
import { EventSpool } from '../disk/event-spool';
import { PushReader } from '../disk/push-reader';
import { hashedDiskPath } from '../domain/hashed-storage';
import { landedUpdates } from '../domain/push-intent-rules';
import { parseRefUpdates } from '../domain/ref-updates';
import type { GitHttpDeps } from './git-http-deps';
import { completePush } from './receive-hooks';
import { reportStatisticsQuietly } from './statistics';

/** What pre-receive records of a push it allowed, before git moves any ref. */
export interface PushIntent {
  /** The push's session id (its events' ids derive from it). */
  id: string;
  projectId: number;
  storage: string;
  actor: Actor;
  /** git's ref updates as the hooks read them (`<old> <new> <ref>` lines). */
  changes: string;
  /** When pre-receive allowed the push (ISO 8601). */
  at: string;
}

/**
 * The intents of pushes in flight, one fsynced file each (`<STORAGE_ROOT>/@push-intents`): pre-receive appends one once
 * the push is allowed, post-receive removes it once the events are written or spooled. A file left behind is a push whose
 * post-receive did not hand its events off (repo-admin died, or the hook failed); `reconcilePushIntents` finishes it.
 */
export class PushIntents {
  private readonly spool: EventSpool;

  constructor(readonly dir: string) {
    this.spool = new EventSpool(dir);
  }

  open(): Promise<void> {
    return this.spool.open();
  }

  /** Durable once resolved; the name to settle it by. */
  record(intent: PushIntent): Promise<string> {
    return this.spool.append(intent);
  }

  settle(name: string): Promise<void> {
    return this.spool.remove(name);
  }

  list(): Promise<string[]> {
    return this.spool.list();
  }

  async read(name: string): Promise<PushIntent> {
    const i = (await this.spool.read(name)) as Partial<PushIntent> | null;
    if (!i || typeof i.id !== 'string' || typeof i.projectId !== 'number' || typeof i.changes !== 'string' || typeof i.at !== 'string' || !i.actor) {
      throw new Error('not a push intent');
    }
    return i as PushIntent;
  }

  quarantine(name: string): Promise<void> {
    return this.spool.quarantine(name);
  }
}

/**
 * Finishes the pushes whose intent is left, oldest first, except those still running here: the ref updates that landed
 * get the events post-receive would have built (same ids, so a hand-off that happened before its intent's removal is
 * dropped as a duplicate), then the intent goes; a push whose refs did not move (refused or aborted after pre-receive)
 * only loses its intent. An intent that fails (git not answering) stays for the next round.
 */
export async function reconcilePushIntents(deps: GitHttpDeps, intents: PushIntents): Promise<void> {
  const log = deps.logger.child({ component: 'push-intents' });
  for (const name of await intents.list()) {
    let intent: PushIntent;
    try {
      intent = await intents.read(name);
    } catch (err) {
      log.error({ err, file: name }, 'unreadable push intent set aside');
      await intents.quarantine(name);
      continue;
    }
    if (deps.sessions.get(intent.id)) continue;
    try {
      const repoDir = path.join(deps.storageRoot, hashedDiskPath(intent.projectId));
      const reader = new PushReader(deps.git, repoDir);
      const updates = parseRefUpdates(intent.changes);
      // A repository deleted since has no events to give.
      const exists = new BareRepository(deps.git, repoDir).exists();
      const targets = new Map<string, string | undefined>();
      if (exists) for (const u of updates) targets.set(u.ref, await reader.refTarget(u.ref));
      const landed = exists ? landedUpdates(updates, (ref) => targets.get(ref)) : [];
      if (landed.length) {
        await completePush(deps, { id: intent.id, projectId: intent.projectId, actor: intent.actor, repoDir }, landed, new Date(intent.at));
        log.warn({ project_id: intent.projectId, refs: landed.length }, 'events of an interrupted push handed off');
      }
      await intents.settle(name);
      if (landed.length) await reportStatisticsQuietly(deps, intent.projectId);
    } catch (err) {
      log.warn({ err, file: name, project_id: intent.projectId }, 'interrupted push not finished yet; will retry');
    }
  }
}

/** Reconciles now, then every `intervalMs` (intents of pushes whose hook failed while this process runs). */
export async function startPushIntentsReconciler(deps: GitHttpDeps, intents: PushIntents, intervalMs: number): Promise<{ stop(): Promise<void> }> {
  await intents.open();
  await reconcilePushIntents(deps, intents);
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      await sleep(intervalMs, abort.signal);
      if (abort.signal.aborted) return;
      await reconcilePushIntents(deps, intents).catch((err: unknown) => deps.logger.warn({ err }, 'push intents not reconciled'));
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
