import type { Pool, PoolClient } from '@glp/db';
import type { ApplicationSettings } from '../domain/application-settings';

type Queryable = Pool | PoolClient;

export interface ApplicationSettingsRow {
  allow_local_requests_from_web_hooks_and_services: boolean;
  allow_local_requests_from_system_hooks: boolean;
  outbound_local_requests_allowlist: string[];
  deny_all_requests_except_allowed: boolean;
  deletion_adjourned_period: number;
  updated_at: Date;
}

const COLUMNS = `allow_local_requests_from_web_hooks_and_services, allow_local_requests_from_system_hooks,
  outbound_local_requests_allowlist, deny_all_requests_except_allowed, deletion_adjourned_period, updated_at`;

/** The one row; `forUpdate` locks it for the caller's transaction. */
export async function findApplicationSettings(db: Queryable, opts: { forUpdate?: boolean } = {}): Promise<ApplicationSettingsRow | undefined> {
  const { rows } = await db.query<ApplicationSettingsRow>(
    `SELECT ${COLUMNS} FROM application_settings WHERE id = 1${opts.forUpdate ? ' FOR UPDATE' : ''}`,
  );
  return rows[0];
}

/** Creates the row unless it exists; returns it only when this call created it. */
export async function insertApplicationSettingsIfAbsent(db: Queryable, s: ApplicationSettings): Promise<ApplicationSettingsRow | undefined> {
  const { rows } = await db.query<ApplicationSettingsRow>(
    `INSERT INTO application_settings (id, allow_local_requests_from_web_hooks_and_services, allow_local_requests_from_system_hooks,
       outbound_local_requests_allowlist, deny_all_requests_except_allowed, deletion_adjourned_period)
     VALUES (1, $1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
    [s.allowLocalRequestsFromWebHooksAndServices, s.allowLocalRequestsFromSystemHooks, s.outboundLocalRequestsAllowlist, s.denyAllRequestsExceptAllowed,
      s.deletionAdjournedPeriod],
  );
  return rows[0];
}

export async function updateApplicationSettings(db: Queryable, s: ApplicationSettings): Promise<ApplicationSettingsRow> {
  const { rows } = await db.query<ApplicationSettingsRow>(
    `UPDATE application_settings SET allow_local_requests_from_web_hooks_and_services = $1, allow_local_requests_from_system_hooks = $2,
       outbound_local_requests_allowlist = $3, deny_all_requests_except_allowed = $4, deletion_adjourned_period = $5, updated_at = now()
     WHERE id = 1 RETURNING ${COLUMNS}`,
    [s.allowLocalRequestsFromWebHooksAndServices, s.allowLocalRequestsFromSystemHooks, s.outboundLocalRequestsAllowlist, s.denyAllRequestsExceptAllowed,
      s.deletionAdjournedPeriod],
  );
  return rows[0]!;
}

export function settingsOfRow(r: ApplicationSettingsRow): ApplicationSettings {
  return {
    allowLocalRequestsFromWebHooksAndServices: r.allow_local_requests_from_web_hooks_and_services,
    allowLocalRequestsFromSystemHooks: r.allow_local_requests_from_system_hooks,
    outboundLocalRequestsAllowlist: r.outbound_local_requests_allowlist,
    denyAllRequestsExceptAllowed: r.deny_all_requests_except_allowed,
    deletionAdjournedPeriod: r.deletion_adjourned_period,
  };
}
