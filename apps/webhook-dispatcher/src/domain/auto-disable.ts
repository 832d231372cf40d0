/**
 * GitLab's auto-disabling of project hooks (`app/models/concerns/web_hooks/auto_disabling.rb`): failures 1–3 are grace;
 * from the 4th the hook is temporarily disabled for INITIAL_BACKOFF · 2^(recent_failures_before − 3) clamped to
 * [INITIAL_BACKOFF, MAX_BACKOFF] (1 min and 1 day in GitLab; baseMs/maxMs here); the 40th failure disables it for good
 * (alert_status "disabled") until it is edited. A success re-enables it (`enable!`). A failure is counted only while
 * the hook is executable (`backoff!` returns otherwise) and, beyond GitLab, only when its attempt started after the
 * last counted failure, so a burst of attempts in flight to a dead receiver counts once.
 */
export const TEMPORARILY_DISABLED_FAILURE_THRESHOLD = 3;
export const PERMANENTLY_DISABLED_FAILURE_THRESHOLD = 39;

export interface HookHealth {
  recentFailures: number;
  disabledUntil: Date | null;
  permanentlyDisabled: boolean;
  lastFailureAt: Date | null;
}

export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled';

export interface DisablePolicy {
  baseMs: number;
  maxMs: number;
}

export const HEALTHY: HookHealth = Object.freeze({ recentFailures: 0, disabledUntil: null, permanentlyDisabled: false, lastFailureAt: null });

export function temporarilyDisabled(h: HookHealth, now: Date): boolean {
  return (
    h.disabledUntil !== null &&
    h.disabledUntil.getTime() >= now.getTime() &&
    h.recentFailures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD &&
    h.recentFailures <= PERMANENTLY_DISABLED_FAILURE_THRESHOLD
  );
}

export function permanentlyDisabled(h: HookHealth): boolean {
  return h.permanentlyDisabled || h.recentFailures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD;
}

export function executable(h: HookHealth, now: Date): boolean {
  return !temporarilyDisabled(h, now) && !permanentlyDisabled(h);
}

export function alertStatus(h: HookHealth, now: Date): AlertStatus {
  if (temporarilyDisabled(h, now)) return 'temporarily_disabled';
  if (permanentlyDisabled(h)) return 'disabled';
  return 'executable';
}

/** GitLab's `next_backoff`, from the failure count before this failure. */
export function disableBackoffMs(failuresBefore: number, policy: DisablePolicy): number {
  const exp = Math.min(Math.max(failuresBefore - TEMPORARILY_DISABLED_FAILURE_THRESHOLD, 0), 60);
  return Math.min(Math.max(policy.baseMs * 2 ** exp, policy.baseMs), policy.maxMs);
}

/** The state after a failed attempt that started at `attemptStartedAt` (unchanged when it does not count). */
export function afterFailure(h: HookHealth, attemptStartedAt: Date, now: Date, policy: DisablePolicy): HookHealth {
  if (!executable(h, now)) return h;
  if (h.lastFailureAt && attemptStartedAt.getTime() <= h.lastFailureAt.getTime()) return h;
  const recentFailures = Math.min(h.recentFailures + 1, PERMANENTLY_DISABLED_FAILURE_THRESHOLD + 1);
  const disabledUntil = recentFailures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD ? new Date(now.getTime() + disableBackoffMs(h.recentFailures, policy)) : h.disabledUntil;
  return { recentFailures, disabledUntil, permanentlyDisabled: recentFailures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD, lastFailureAt: now };
}

/** GitLab's `enable!`: a success resets the failures. */
export function afterSuccess(): HookHealth {
  return HEALTHY;
}

/** Whether hooks must learn the change (what the hook shows: alert_status and disabled_until; the count too). */
export function healthChanged(before: HookHealth, after: HookHealth): boolean {
  return (
    before.recentFailures !== after.recentFailures ||
    before.permanentlyDisabled !== after.permanentlyDisabled ||
    (before.disabledUntil?.getTime() ?? null) !== (after.disabledUntil?.getTime() ?? null)
  );
}
