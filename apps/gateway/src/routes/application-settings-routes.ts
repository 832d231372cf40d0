import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { applicationSettingEntity } from '../presenters/application-setting';

/**
 * The PUT params this platform honours (GitLab's lib/api/settings.rb names and types). The allowlist comes as GitLab's
 * `outbound_local_requests_whitelist` (Array[String], `coerce_with: CommaSeparatedToArray`), under the newer
 * `outbound_local_requests_allowlist`, or as the raw text `outbound_local_requests_allowlist_raw` (GitLab's
 * `strings_to_array`: split on commas, semicolons and newlines). GitLab's `at_least_one_of` over its optional
 * attributes: a PUT with none of them is 400 "... are missing, at least one parameter must be provided".
 */
const updateParams = defineParams({
  allow_local_requests_from_web_hooks_and_services: p.boolean(),
  // Legacy name GitLab still accepts (lib/api/settings.rb: "support legacy names, can be removed in v5").
  allow_local_requests_from_hooks_and_services: p.boolean(),
  allow_local_requests_from_system_hooks: p.boolean(),
  outbound_local_requests_whitelist: p.arrayOf(p.string()).commaSeparated(),
  outbound_local_requests_allowlist: p.arrayOf(p.string()).commaSeparated(),
  outbound_local_requests_allowlist_raw: p.string(),
  deny_all_requests_except_allowed: p.boolean(),
  deletion_adjourned_period: p.int32(),
}).atLeastOneOf(
  'allow_local_requests_from_web_hooks_and_services', 'allow_local_requests_from_hooks_and_services', 'allow_local_requests_from_system_hooks',
  'outbound_local_requests_whitelist', 'outbound_local_requests_allowlist', 'outbound_local_requests_allowlist_raw', 'deny_all_requests_except_allowed',
  'deletion_adjourned_period',
);

/** ApplicationSettingImplementation#strings_to_array (DOMAIN_LIST_SEPARATOR: commas, semicolons, newlines). */
function rawToArray(raw: string): string[] {
  return [...new Set(raw.split(/\s*[,;]\s*|\s*\n\s*/).map((s) => s.trim()).filter((s) => s !== ''))];
}

/** GET/PUT /application/settings (lib/api/settings.rb: `before { authenticated_as_admin! }`): 401 anonymous, 403 others. */
export const applicationSettingsRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/application/settings', access: 'admin', params: defineParams({}),
    handler: async ({ services }) => {
      const { settings } = await services.identity.getApplicationSettings({});
      return { body: applicationSettingEntity(settings) };
    },
  }),

  route({
    method: 'PUT', path: '/application/settings', access: 'admin', params: updateParams,
    handler: async ({ params, services }) => {
      const raw = params.outbound_local_requests_allowlist_raw;
      const list = params.outbound_local_requests_whitelist ?? params.outbound_local_requests_allowlist
        ?? (raw === undefined ? undefined : rawToArray(raw ?? ''));
      const { settings } = await services.identity.updateApplicationSettings({
        input: {
          allowLocalRequestsFromWebHooksAndServices:
            params.allow_local_requests_from_web_hooks_and_services ?? params.allow_local_requests_from_hooks_and_services ?? undefined,
          allowLocalRequestsFromSystemHooks: params.allow_local_requests_from_system_hooks ?? undefined,
          outboundLocalRequestsAllowlist: list === undefined ? undefined : { entries: list },
          denyAllRequestsExceptAllowed: params.deny_all_requests_except_allowed ?? undefined,
          deletionAdjournedPeriod: params.deletion_adjourned_period ?? undefined,
        },
      });
      return { body: applicationSettingEntity(settings) };
    },
  }),
];
