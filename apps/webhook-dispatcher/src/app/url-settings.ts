import type { identityV1 } from '@glp/proto';
import type { Logger, PromiseClient } from '@glp/service-kit';
import type { WebhookUrlSettings as HookUrlSettings } from '@glp/url-guard';

const DEFAULT_HOOK_URL_SETTINGS: HookUrlSettings = Object.freeze({ allowLocalRequests: false, allowlist: [], denyAllExceptAllowed: false });
import { SERVICE_ACTOR } from './deps';

type SettingsSource = Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getApplicationSettings'>;

/** identity's application settings (or the event carrying them) → the webhook URL rules. */
export function fromApplicationSettings(s: {
  allowLocalRequestsFromWebHooksAndServices: boolean;
  outboundLocalRequestsAllowlist: string[];
  denyAllRequestsExceptAllowed: boolean;
}): HookUrlSettings {
  return { allowLocalRequests: s.allowLocalRequestsFromWebHooksAndServices, allowlist: [...s.outboundLocalRequestsAllowlist], denyAllExceptAllowed: s.denyAllRequestsExceptAllowed };
}

/**
 * The URL rules every delivery is checked against, kept in memory: loaded from identity at start (deliveries wait
 * until then), replaced by ApplicationSettingsChanged (and a NOTIFY to the other replicas, which reload), and
 * re-read every `refreshMs` in case an event was missed.
 */
export class UrlSettings {
  private value: HookUrlSettings = DEFAULT_HOOK_URL_SETTINGS;
  private loadedOnce = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failing = false;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly identity: SettingsSource, private readonly logger: Logger) {}

  current(): HookUrlSettings {
    return this.value;
  }

  get loaded(): boolean {
    return this.loadedOnce;
  }

  set(value: HookUrlSettings): void {
    this.value = value;
    this.markLoaded();
  }

  /** Reads identity's settings now; false when identity did not answer (the previous rules stay). */
  async reload(): Promise<boolean> {
    try {
      const { settings } = await this.identity.getApplicationSettings({}, { actor: SERVICE_ACTOR });
      if (settings) this.set(fromApplicationSettings(settings));
      this.failing = false;
      return true;
    } catch (err) {
      // Once per outage (retried every second at start-up).
      if (!this.failing) this.logger.warn({ err }, 'application settings not loaded from identity');
      this.failing = true;
      return false;
    }
  }

  /** Resolves once settings were loaded. */
  whenLoaded(): Promise<void> {
    if (this.loadedOnce) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Loads now (retrying every second until identity answers), then every refreshMs. */
  start(refreshMs: number): void {
    const first = async () => {
      while (!this.loadedOnce && !(await this.reload())) {
        if (this.stopped) return;
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    };
    void first();
    this.timer = setInterval(() => void this.reload(), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private markLoaded(): void {
    this.loadedOnce = true;
    for (const w of this.waiters.splice(0)) w();
  }
}
