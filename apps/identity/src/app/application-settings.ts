import { withTransaction, type Pool } from '@glp/db';
import { forbidden, invalid, systemActor, type Actor } from '@glp/service-kit';
import { applySettingsChange, initialSettings, type ApplicationSettingsChange } from '../domain/application-settings';
import { recordApplicationSettingsChanged } from '../events/application-settings-events';
import {
  findApplicationSettings, insertApplicationSettingsIfAbsent, settingsOfRow, updateApplicationSettings, type ApplicationSettingsRow,
} from '../store/application-settings-store';

export interface ApplicationSettingsDeps {
  pool: Pool;
  topic: string;
  /** Start-up defaults for a row not created yet (ALLOW_LOCAL_WEBHOOKS, OUTBOUND_ALLOWLIST, DELETION_ADJOURNED_PERIOD). */
  defaults: { allowLocalWebhooks: boolean; outboundAllowlist: readonly string[]; deletionAdjournedPeriod?: number };
}

/**
 * The row, created from the defaults when there is none (GitLab's `ApplicationSetting.find_or_create_without_cache`).
 * Creating it outboxes ApplicationSettingsChanged, so consumers reading the topic from the beginning learn the
 * initial values. Later starts never overwrite it: changes made through the API win over the environment.
 */
export async function ensureApplicationSettings(deps: ApplicationSettingsDeps): Promise<ApplicationSettingsRow> {
  const existing = await findApplicationSettings(deps.pool);
  if (existing) return existing;
  return withTransaction(deps.pool, async (client) => {
    const initial = initialSettings(deps.defaults);
    const created = await insertApplicationSettingsIfAbsent(client, initial);
    if (!created) return (await findApplicationSettings(client))!;
    await recordApplicationSettingsChanged(client, deps.topic, initial, systemActor('identity-bootstrap'));
    return created;
  });
}

/** GET /application/settings: administrators; services read them as system actors. */
export async function getApplicationSettings(deps: ApplicationSettingsDeps, actor: Actor): Promise<ApplicationSettingsRow> {
  if (!(actor.kind === 'system' || (actor.kind === 'user' && actor.admin))) throw forbidden();
  return ensureApplicationSettings(deps);
}

/**
 * PUT /application/settings (administrators only): validated as GitLab's model does (400 with field errors, nothing
 * written), then written with ApplicationSettingsChanged in the same transaction.
 */
export async function updateApplicationSettingsAs(
  deps: ApplicationSettingsDeps,
  actor: Actor,
  change: ApplicationSettingsChange,
): Promise<ApplicationSettingsRow> {
  if (!(actor.kind === 'user' && actor.admin)) throw forbidden();
  await ensureApplicationSettings(deps);
  return withTransaction(deps.pool, async (client) => {
    const current = (await findApplicationSettings(client, { forUpdate: true }))!;
    const next = applySettingsChange(settingsOfRow(current), change);
    if (!next.ok) throw invalid(next.errors);
    const row = await updateApplicationSettings(client, next.settings);
    await recordApplicationSettingsChanged(client, deps.topic, settingsOfRow(row), actor);
    return row;
  });
}
