import type { webhookDispatcherV1 } from '@glp/proto';
import { forbidden, type AsyncService, type CallContext } from '@glp/service-kit';
import { listDeliveries, resendDelivery } from '../app/delivery-log';
import type { DispatcherDeps } from '../app/deps';
import { executeTest } from '../app/test-hook';

/** Only the hooks service calls (it checked the caller's right to the hook). */
function requireHooks(ctx: CallContext): void {
  if (ctx.actor.kind !== 'system' || ctx.actor.username !== 'hooks') throw forbidden('only the hooks service may call the webhook-dispatcher');
}

export function webhookDispatcherService(deps: DispatcherDeps): AsyncService<webhookDispatcherV1.WebhookDispatcherServiceServer> {
  return {
    async executeTest(req, ctx) {
      requireHooks(ctx);
      return { outcome: await executeTest(deps, req) };
    },
    async listDeliveries(req, ctx) {
      requireHooks(ctx);
      return listDeliveries(deps, req);
    },
    async resendDelivery(req, ctx) {
      requireHooks(ctx);
      return { outcome: await resendDelivery(deps, req) };
    },
  };
}
