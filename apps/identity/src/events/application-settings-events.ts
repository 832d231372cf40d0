import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes } from '@glp/events';
import { identityEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import type { ApplicationSettings } from '../domain/application-settings';

/**
 * Outboxes ApplicationSettingsChanged (key `application_settings`) with the settings as they now are, in the caller's
 * transaction: the hooks service and the webhook-dispatcher apply them to webhook URLs.
 */
export async function recordApplicationSettingsChanged(client: PoolClient, topic: string, s: ApplicationSettings, actor?: Actor): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'application_settings',
    aggregateKey: 'application_settings',
    payloadType: EventTypes.ApplicationSettingsChanged,
    payload: identityEventsV1.ApplicationSettingsChanged.fromPartial({
      allowLocalRequestsFromWebHooksAndServices: s.allowLocalRequestsFromWebHooksAndServices,
      allowLocalRequestsFromSystemHooks: s.allowLocalRequestsFromSystemHooks,
      outboundLocalRequestsAllowlist: s.outboundLocalRequestsAllowlist,
      denyAllRequestsExceptAllowed: s.denyAllRequestsExceptAllowed,
      deletionAdjournedPeriod: s.deletionAdjournedPeriod,
    }),
    actor,
  });
}
