import type { PoolClient } from 'pg';
import { afterFailure, afterSuccess, healthChanged, HEALTHY, type HookHealth } from '../domain/auto-disable';
import { lockHealth, readHealth, saveHealth, unhealthyAmong } from '../store/health-store';
import { appendHookHealthChanged } from '../events/health-events';
import type { DispatcherDeps } from './deps';

/**
 * Moves the hook's auto-disable state after an attempt (GitLab's `backoff!` / `enable!`), in the caller's transaction,
 * and outboxes HookHealthChanged when it changed.
 */
export async function recordHealth(
  client: PoolClient,
  deps: Pick<DispatcherDeps, 'settings' | 'topic'>,
  hookId: number,
  projectId: number,
  outcome: 'success' | 'failure',
  attemptStartedAt: Date,
): Promise<void> {
  // The common case, a success of a healthy hook, changes nothing: decided without taking the row lock.
  if (outcome === 'success' && isHealthy(await readHealth(client, hookId))) return;
  const before = await lockHealth(client, hookId, projectId);
  const now = new Date();
  const after = outcome === 'success' ? afterSuccess() : afterFailure(before, attemptStartedAt, now, deps.settings.disable);
  if (after === before || (!healthChanged(before, after) && before.lastFailureAt?.getTime() === after.lastFailureAt?.getTime())) return;
  const version = await saveHealth(client, hookId, after);
  if (healthChanged(before, after)) await appendHookHealthChanged(client, deps.topic, { hookId, projectId, health: after, version, now });
}

function isHealthy(h: HookHealth): boolean {
  return h.recentFailures === 0 && h.disabledUntil === null && !h.permanentlyDisabled && h.lastFailureAt === null;
}

/**
 * recordHealth for a batch of attempts, in order: a success of a hook without failure state (one query for the batch)
 * changes nothing and is skipped; everything else goes through recordHealth.
 */
export async function recordHealths(
  client: PoolClient,
  deps: Pick<DispatcherDeps, 'settings' | 'topic'>,
  attempts: { hookId: number; projectId: number; outcome: 'success' | 'failure'; startedAt: Date }[],
): Promise<void> {
  const unhealthy = await unhealthyAmong(client, [...new Set(attempts.map((a) => a.hookId))]);
  for (const a of attempts) {
    if (a.outcome === 'success' && !unhealthy.has(a.hookId)) continue;
    if (a.outcome === 'failure') unhealthy.add(a.hookId);
    await recordHealth(client, deps, a.hookId, a.projectId, a.outcome, a.startedAt);
  }
}

/** GitLab re-enables an edited hook: the state goes back to healthy (HookHealthChanged when it was not). */
export async function resetHealth(client: PoolClient, topic: string, hookId: number, projectId: number): Promise<void> {
  const before = await lockHealth(client, hookId, projectId);
  if (!healthChanged(before, HEALTHY) && before.lastFailureAt === null) return;
  const version = await saveHealth(client, hookId, HEALTHY);
  if (healthChanged(before, HEALTHY)) await appendHookHealthChanged(client, topic, { hookId, projectId, health: HEALTHY, version, now: new Date() });
}

