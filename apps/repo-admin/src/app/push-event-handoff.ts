import { withTransaction, type Pool } from '@glp/db';
import { appendEnvelope, Backoff, decodeEnvelope, encodeEnvelope, sleep, Wakeup, type EventEnvelope } from '@glp/events';
import type { Logger } from '@glp/service-kit';
import { EventSpool } from '../disk/event-spool';
import { upsertRepository } from '../store/repositories-store';
import { spooledPushes } from './metrics';

/** What a completed push leaves to write: the repository's row and its events, built once (their ids fixed). */
export interface PushRecord {
  repository: { projectId: number; storage: string; diskPath: string; empty: boolean; defaultBranch: string };
  topic: string;
  /** Push/TagPush per ref, then RepositoryChanged, in that order. */
  events: EventEnvelope[];
}

interface SpooledPush {
  repository: PushRecord['repository'];
  topic: string;
  /** Encoded envelopes, base64. */
  events: string[];
}

export interface PushEventHandOffOptions {
  pool: Pool;
  logger: Logger;
  /** Where records wait for the database (`<STORAGE_ROOT>/@push-events`). */
  dir: string;
  /** Attempts to write a push's record before spooling it (default 3, 100 ms apart then 200 ms). */
  attempts?: number;
  /** The spool is drained on every hand-off and at least this often (default 1000 ms); failed writes back off to 5 s. */
  pollMs?: number;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string } | undefined)?.code === '23505';

/**
 * The hand-off of a completed push's events: git has moved the refs, so they must reach the outbox whatever the
 * database does meanwhile. A record is written at once (a few quick attempts); when PostgreSQL does not answer, it is
 * appended durably to a spool on disk and the post-receive hook returns. A background loop writes the spool's records in
 * order, retrying with backoff, and deletes each one after its transaction committed; while any waits, later pushes
 * queue behind them so a project's events keep their order. A record written whose deletion was lost is met again as
 * a duplicate event id and dropped (the outbox had it; consumers deduplicate what was published already).
 */
export class PushEventHandOff {
  private readonly spool: EventSpool;
  private readonly log: Logger;
  private readonly wakeup = new Wakeup();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  /** Records spooled and not yet written (or being appended). */
  private waiting = 0;

  constructor(private readonly opts: PushEventHandOffOptions) {
    this.spool = new EventSpool(opts.dir);
    this.log = opts.logger.child({ component: 'push-event-handoff' });
  }

  /** Opens the spool and starts draining what a previous process left in it. */
  async start(): Promise<void> {
    await this.spool.open();
    this.waiting = (await this.spool.list()).length;
    spooledPushes.set(this.waiting);
    if (this.waiting) this.log.warn({ waiting: this.waiting }, 'push events left in the spool; writing them');
    this.loop = this.drainLoop();
  }

  /** Lets a write in progress finish; what is still spooled stays for the next start. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.wakeup.notify();
    await this.loop;
  }

  /** Writes the record or spools it; never throws (the push itself stands). */
  async deliver(record: PushRecord): Promise<void> {
    if (this.waiting === 0) {
      const attempts = this.opts.attempts ?? 3;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.write(record);
          return;
        } catch (err) {
          if (isUniqueViolation(err)) return;
          if (attempt >= attempts) {
            this.log.warn({ err, project_id: record.repository.projectId }, 'push events not written; spooling them until the database answers');
            break;
          }
          await sleep(100 * attempt);
        }
      }
    }
    this.waiting++;
    spooledPushes.set(this.waiting);
    try {
      await this.spool.append(toSpooled(record));
    } catch (err) {
      this.waiting--;
      spooledPushes.set(this.waiting);
      this.log.error({ err, project_id: record.repository.projectId, event_ids: record.events.map((e) => e.eventId) }, 'push events lost: neither written nor spooled');
      return;
    }
    this.wakeup.notify();
  }

  private async write(record: PushRecord): Promise<void> {
    await withTransaction(this.opts.pool, async (client) => {
      await upsertRepository(client, record.repository);
      for (const event of record.events) await appendEnvelope(client, record.topic, event);
    });
  }

  private async drainLoop(): Promise<void> {
    const backoff = new Backoff(200, 5000);
    while (!this.abort.signal.aborted) {
      await this.wakeup.wait(this.opts.pollMs ?? 1000, this.abort.signal);
      try {
        await this.drain();
        backoff.reset();
      } catch (err) {
        const delay = backoff.next();
        this.log.warn({ err, waiting: this.waiting, retryInMs: delay }, 'spooled push events not written yet; will retry');
        await sleep(delay, this.abort.signal);
        this.wakeup.notify();
      }
    }
  }

  /** Writes the spooled records oldest first; throws at the first that cannot be written (it and those after it wait). */
  private async drain(): Promise<void> {
    for (const name of await this.spool.list()) {
      if (this.abort.signal.aborted) return;
      let record: PushRecord;
      try {
        record = fromSpooled((await this.spool.read(name)) as SpooledPush);
      } catch (err) {
        this.log.error({ err, file: name }, 'unreadable push events record set aside');
        await this.spool.quarantine(name);
        this.settled();
        continue;
      }
      try {
        await this.write(record);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      await this.spool.remove(name);
      this.settled();
      this.log.info({ project_id: record.repository.projectId, events: record.events.length }, 'spooled push events written');
    }
  }

  private settled(): void {
    this.waiting = Math.max(0, this.waiting - 1);
    spooledPushes.set(this.waiting);
  }
}

function toSpooled(r: PushRecord): SpooledPush {
  return { repository: r.repository, topic: r.topic, events: r.events.map((e) => encodeEnvelope(e).toString('base64')) };
}

function fromSpooled(s: SpooledPush): PushRecord {
  return { repository: s.repository, topic: s.topic, events: s.events.map((b) => decodeEnvelope(Buffer.from(b, 'base64'))) };
}
