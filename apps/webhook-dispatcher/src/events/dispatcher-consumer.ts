import { EventTypes, onEvent, type EventHandlers } from '@glp/events';
import { enqueuePush } from '../app/enqueue-push';
import type { DispatcherDeps } from '../app/deps';
import { resetHealth } from '../app/hook-health';
import { fromApplicationSettings, type UrlSettings } from '../app/url-settings';
import { dropOpenDeliveries, notifyDeliveries } from '../store/deliveries-store';
import { deleteHealth } from '../store/health-store';
import { channelName, notify } from '../store/notify-channels';

/** The NOTIFY channel on which replicas learn that the URL settings changed (each reloads them from identity). */
export function settingsChannel(schema: string): string {
  return channelName(schema, 'settings');
}

/**
 * What the dispatcher consumes (topics repo-admin, hooks, identity), each effect in the transaction that records the
 * event as consumed: pushes become deliveries; an edited hook is re-enabled; a deleted hook's open deliveries are
 * dropped; new URL settings apply at once (here, and on the other replicas through NOTIFY).
 */
export function dispatcherHandlers(deps: DispatcherDeps, urlSettings: UrlSettings): EventHandlers {
  return {
    ...onEvent(EventTypes.Push, async ({ client, envelope, payload }) => {
      await enqueuePush(deps, client, envelope, payload, 'push');
    }),
    ...onEvent(EventTypes.TagPush, async ({ client, envelope, payload }) => {
      await enqueuePush(deps, client, envelope, payload, 'tag_push');
    }),
    ...onEvent(EventTypes.HookUpdated, async ({ client, payload }) => {
      await resetHealth(client, deps.topic, payload.hookId, payload.projectId);
      await notifyDeliveries(client);
    }),
    ...onEvent(EventTypes.HookDeleted, async ({ client, payload }) => {
      await dropOpenDeliveries(client, payload.hookId);
      await deleteHealth(client, payload.hookId);
    }),
    ...onEvent(EventTypes.ApplicationSettingsChanged, async ({ client, payload }) => {
      urlSettings.set(fromApplicationSettings(payload));
      await notify(client, 'settings');
    }),
  };
}
