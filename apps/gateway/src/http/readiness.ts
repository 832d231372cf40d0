import { credentials, makeGenericClientConstructor, type Client, type ServiceDefinition } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import type { Redis } from 'ioredis';

const HealthClient = makeGenericClientConstructor(healthService as unknown as ServiceDefinition, 'grpc.health.v1.Health');

type CheckFn = (req: { service: string }, opts: { deadline: number }, cb: (err: Error | null, res?: { status: string | number }) => void) => void;

/** Readiness of the gateway's dependencies: each gRPC backend's standard health service, and Redis. */
export class ReadinessProbe {
  private readonly clients: Array<{ name: string; client: Client }>;

  constructor(backends: Record<string, string>, private readonly redis?: Redis) {
    this.clients = Object.entries(backends).map(([name, address]) => ({
      name,
      client: new HealthClient(address.includes('://') ? address : `dns:///${address}`, credentials.createInsecure()),
    }));
  }

  /** name → "ok" or the reason it is not ready. */
  async check(timeoutMs = 1000): Promise<Record<string, string>> {
    const results: Record<string, string> = {};
    await Promise.all([
      ...this.clients.map(async ({ name, client }) => {
        results[name] = await new Promise<string>((resolve) => {
          (client as unknown as { check: CheckFn }).check({ service: '' }, { deadline: Date.now() + timeoutMs }, (err, res) => {
            if (err) resolve(err.message);
            else resolve(res?.status === 'SERVING' || res?.status === 1 ? 'ok' : `status ${String(res?.status)}`);
          });
        });
      }),
      (async () => {
        if (!this.redis) return;
        try {
          results.redis = (await this.redis.ping()) === 'PONG' ? 'ok' : 'no PONG';
        } catch (err) {
          results.redis = (err as Error).message;
        }
      })(),
    ]);
    return results;
  }

  close(): void {
    for (const { client } of this.clients) client.close();
  }
}
