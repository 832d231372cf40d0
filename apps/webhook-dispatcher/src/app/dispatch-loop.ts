import { withTransaction } from '@glp/db';
import type { hooksV1 } from '@glp/proto';
import { afterFailedAttempt } from '../domain/retry-schedule';
import { claimDueDeliveries, finishAttempt, finishAttempts, releaseClaims, type AttemptOutcome, type ClaimedDelivery } from '../store/deliveries-store';
import { insertLogs } from '../store/logs-store';
import { performAttempt, type Attempt } from './attempt';
import { recordHealths } from './hook-health';
import { SERVICE_ACTOR, type DispatcherDeps } from './deps';
import { deliveriesTotal, deliveryLatency } from './metrics';

export interface DispatchLoopOptions {
  concurrency: number;
  pollMs: number;
  /** Deliveries wait until this resolves (the URL settings are loaded). */
  ready?: Promise<void>;
}

/**
 * The workers of one process: claim due deliveries (SKIP LOCKED, leased) up to the free slots, fetch their hooks'
 * targets with one GetDeliveryTargets call, send each, then record log, delivery status and hook health in one
 * transaction. Woken by `kick()` (NOTIFY of new deliveries), a poll timer (retries coming due, expired leases) and
 * finished sends.
 */
export class DispatchLoop {
  private inflight = 0;
  private pumping = false;
  private again = false;
  /**
   * The last claim found fewer due rows than it asked for: the queue was drained at that moment, so a finished send
   * need not look again (a NOTIFY or the poll timer will). Saves one claim query per delivery under load.
   */
  private drained = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly idle: (() => void)[] = [];

  constructor(private readonly deps: DispatcherDeps, private readonly opts: DispatchLoopOptions) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.pollMs);
    this.timer.unref();
    void (this.opts.ready ?? Promise.resolve()).then(() => this.kick());
  }

  /** Stops claiming; resolves when the sends in flight are recorded (or after timeoutMs: their leases expire). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.inflight === 0) return;
    await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  kick(): void {
    this.drained = false;
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  private ready = false;

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      if (!this.ready) {
        await (this.opts.ready ?? Promise.resolve());
        this.ready = true;
      }
      do {
        this.again = false;
        while (!this.stopped) {
          const free = this.opts.concurrency - this.inflight;
          if (free <= 0) break;
          const claimed = await claimDueDeliveries(this.deps.pool, free, this.deps.settings.leaseMs);
          if (claimed.length < free) this.drained = true;
          if (claimed.length === 0) break;
          await this.dispatch(claimed);
          if (claimed.length < free) break;
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      this.deps.logger.error({ err }, 'claiming deliveries failed');
    } finally {
      this.pumping = false;
    }
  }

  private async dispatch(claimed: ClaimedDelivery[]): Promise<void> {
    let targets: Map<number, hooksV1.DeliveryTarget>;
    try {
      const hookIds = [...new Set(claimed.map((c) => c.hookId))];
      const res = await this.deps.hooks.getDeliveryTargets({ hookIds }, { actor: SERVICE_ACTOR });
      targets = new Map(res.targets.map((t) => [t.hookId, t]));
    } catch (err) {
      // hooks did not answer: nothing was sent; give the claims back for a little later, no attempt counted.
      this.deps.logger.warn({ err }, 'delivery targets unavailable; deliveries postponed');
      await releaseClaims(this.deps.pool, claimed, 1000).catch(() => undefined);
      return;
    }
    for (const delivery of claimed) {
      const target = targets.get(delivery.hookId);
      this.inflight++;
      void this.deliver(delivery, target)
        .catch((err) => this.deps.logger.error({ err, delivery_id: delivery.id }, 'delivery failed to record'))
        .finally(() => {
          this.inflight--;
          if (this.inflight === 0) for (const w of this.idle.splice(0)) w();
          // A slot is free: look for more only when the last claim filled every slot (more may be due).
          if (!this.drained) this.kick();
        });
    }
  }

  private async deliver(delivery: ClaimedDelivery, target: hooksV1.DeliveryTarget | undefined): Promise<void> {
    if (!target) {
      // The hook is gone (HookDeleted will say so too).
      await finishAttempt(this.deps.pool, delivery.id, delivery.claimToken, { status: 'dropped' }, false);
      deliveriesTotal.inc({ outcome: 'dropped' });
      return;
    }
    const attempt = await performAttempt(this.deps, target, {
      eventId: delivery.eventId, hookName: delivery.trigger, payload: delivery.payload, idempotencyKey: delivery.idempotencyKey, deliveryId: delivery.id,
    });
    const outcome = attempt.ok ? ({ status: 'succeeded' } as const) : afterFailedAttempt(delivery.attempts + 1, this.deps.settings.retry);
    const recorded = await this.record({ delivery, attempt, outcome });
    const label = attempt.ok ? 'success' : outcome.status === 'failed' ? 'failed' : 'failure';
    deliveriesTotal.inc({ outcome: label });
    deliveryLatency.observe({ outcome: attempt.ok ? 'success' : 'failure' }, Math.max(0, (attempt.answeredAt.getTime() - delivery.occurredAt.getTime()) / 1000));
    if (!recorded) this.deps.logger.warn({ delivery_id: delivery.id }, 'delivery lease lost before its attempt was recorded');
  }

  /**
   * Group commit: the attempts that finish while a batch is being written are written together in the next one
   * transaction (delivery states, log rows, hook health), instead of one transaction each. Resolves with whether the
   * claim was still ours.
   */
  private record(item: Omit<PendingRecord, 'done'>): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.pending.push({ ...item, done: { resolve, reject } });
      if (!this.flushing) void this.flush();
    });
  }

  private pending: PendingRecord[] = [];
  private flushing = false;

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, 200);
        try {
          const mine = await withTransaction(this.deps.pool, async (client) => {
            const ours = await finishAttempts(client, batch.map((b) => ({ id: b.delivery.id, claimToken: b.delivery.claimToken, outcome: b.outcome })));
            await insertLogs(client, batch.map((b) => b.attempt.log));
            await recordHealths(client, this.deps, batch.map((b) => ({
              hookId: b.attempt.log.hookId, projectId: b.delivery.projectId, outcome: b.attempt.ok ? 'success' as const : 'failure' as const, startedAt: b.attempt.startedAt,
            })));
            return ours;
          });
          for (const b of batch) b.done.resolve(mine.has(b.delivery.id));
        } catch (err) {
          for (const b of batch) b.done.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

interface PendingRecord {
  delivery: ClaimedDelivery;
  attempt: Attempt;
  outcome: AttemptOutcome;
  done: { resolve(mine: boolean): void; reject(err: unknown): void };
}
