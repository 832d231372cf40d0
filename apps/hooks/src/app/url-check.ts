import { DomainError } from '@glp/service-kit';
import { checkWebhookUrlAtSave, checkWebhookUrlSyntax, type WebhookUrlSettings } from '@glp/url-guard';
import { SERVICE_ACTOR, type HooksDeps } from './deps';

/** identity's application settings; a failure is UNAVAILABLE (never "allowed"). */
async function settingsOf(deps: Pick<HooksDeps, 'identity'>): Promise<WebhookUrlSettings> {
  try {
    const { settings } = await deps.identity.getApplicationSettings({}, { actor: SERVICE_ACTOR });
    return {
      allowLocalRequests: settings?.allowLocalRequestsFromWebHooksAndServices ?? false,
      allowlist: settings?.outboundLocalRequestsAllowlist ?? [],
      denyAllExceptAllowed: settings?.denyAllRequestsExceptAllowed ?? false,
    };
  } catch (err) {
    throw new DomainError('unavailable', `application settings unavailable: ${(err as Error).message}`);
  }
}

/**
 * GitLab's `PublicUrlValidator` for a hook URL at save time: syntax and scheme (no I/O), then the instance settings
 * and every address the host resolves to; a host that does not resolve is saved (no DNS rebinding check at save time,
 * the dispatcher vets every delivery). The reason is UrlBlocker's message.
 */
export async function urlRefusal(deps: Pick<HooksDeps, 'identity' | 'resolve'>, raw: string): Promise<string | undefined> {
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) return syntax.reason;
  const settings = await settingsOf(deps);
  const checked = await checkWebhookUrlAtSave(syntax.url, settings, deps.resolve);
  return checked.ok ? undefined : checked.reason;
}
