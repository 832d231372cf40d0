import { identityV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import {
  getApplicationSettings, updateApplicationSettingsAs, type ApplicationSettingsDeps,
} from '../app/application-settings';
import type { ApplicationSettingsRow } from '../store/application-settings-store';

type SettingsMethods = 'getApplicationSettings' | 'updateApplicationSettings';

function toProtoSettings(r: ApplicationSettingsRow): identityV1.ApplicationSettings {
  return identityV1.ApplicationSettings.fromPartial({
    allowLocalRequestsFromWebHooksAndServices: r.allow_local_requests_from_web_hooks_and_services,
    allowLocalRequestsFromSystemHooks: r.allow_local_requests_from_system_hooks,
    outboundLocalRequestsAllowlist: r.outbound_local_requests_allowlist,
    denyAllRequestsExceptAllowed: r.deny_all_requests_except_allowed,
    deletionAdjournedPeriod: r.deletion_adjourned_period,
    updatedAt: r.updated_at,
  });
}

/** gRPC adapters of the application settings: decode, call the use case, encode. */
export function applicationSettingsService(deps: ApplicationSettingsDeps): Pick<AsyncService<identityV1.IdentityServiceServer>, SettingsMethods> {
  return {
    async getApplicationSettings(_req, ctx) {
      return { settings: toProtoSettings(await getApplicationSettings(deps, ctx.actor)) };
    },
    async updateApplicationSettings(req, ctx) {
      const input = req.input;
      const row = await updateApplicationSettingsAs(deps, ctx.actor, {
        allowLocalRequestsFromWebHooksAndServices: input?.allowLocalRequestsFromWebHooksAndServices,
        allowLocalRequestsFromSystemHooks: input?.allowLocalRequestsFromSystemHooks,
        outboundLocalRequestsAllowlist: input?.outboundLocalRequestsAllowlist?.entries,
        denyAllRequestsExceptAllowed: input?.denyAllRequestsExceptAllowed,
        deletionAdjournedPeriod: input?.deletionAdjournedPeriod,
      });
      return { settings: toProtoSettings(row) };
    },
  };
}
