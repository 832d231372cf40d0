/**
 * The alert_status a hook shows now (GitLab's `WebHooks::AutoDisabling#alert_status`): a temporary back-off whose
 * `disabled_until` has passed is executable again, though the dispatcher's last report still says temporarily_disabled
 * (nothing changes in the dispatcher when the time runs out).
 */
export function alertStatusNow(stored: string, disabledUntil: Date | null, now: Date): 'executable' | 'temporarily_disabled' | 'disabled' {
  if (stored === 'disabled') return 'disabled';
  if (stored === 'temporarily_disabled' && disabledUntil && disabledUntil.getTime() >= now.getTime()) return 'temporarily_disabled';
  return 'executable';
}
