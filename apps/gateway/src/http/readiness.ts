import { credentials, makeGenericClientConstructor, type Client, type ServiceDefinition } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { isShuttingDown } from '@glp/service-kit';

const HealthClient = makeGenericClientConstructor(healthService as unknown as ServiceDefinition, 'grpc.health.v1.Health');

type CheckFn = (req: { service: string }, opts: { deadline: number }, cb: (err: Error | null, res?: { status: string | number }) => void) => void;

export interface ReadinessReport {
  ready: boolean;
  body: {
    status: 'ok' | 'failed';
    /** Dependencies the gateway cannot serve without: each gRPC backend's standard health service. */
    checks: Record<string, string>;
    /** Dependencies it serves without, only slower (Redis: the token cache). */
    optional: Record<string, string>;
    /** The process's INSTANCE_ID, when set (npm start checks it is talking to its own gateway). */
    instance?: string;
  };
}

/** Readiness of the gateway: its gRPC backends, and not shutting down. Optional parts are reported, not required. */
export class ReadinessProbe {
  private readonly clients: Array<{ name: string; client: Client }>;

  constructor(
    backends: Record<string, string>,
    private readonly optional: Record<string, () => string> = {},
    private readonly instance?: string,
  ) {
    this.clients = Object.entries(backends).map(([name, address]) => ({
      name,
      client: new HealthClient(address.includes('://') ? address : `dns:///${address}`, credentials.createInsecure()),
    }));
  }

  async check(timeoutMs = 1000): Promise<ReadinessReport> {
    const checks: Record<string, string> = {};
    await Promise.all(
      this.clients.map(async ({ name, client }) => {
        checks[name] = await new Promise<string>((resolve) => {
          (client as unknown as { check: CheckFn }).check({ service: '' }, { deadline: Date.now() + timeoutMs }, (err, res) => {
            if (err) resolve(err.message);
            else resolve(res?.status === 'SERVING' || res?.status === 1 ? 'ok' : `status ${String(res?.status)}`);
          });
        });
      }),
    );
    if (isShuttingDown()) checks.gateway = 'shutting down';
    const optional = Object.fromEntries(Object.entries(this.optional).map(([name, status]) => [name, status()]));
    const ready = Object.values(checks).every((v) => v === 'ok');
    return { ready, body: { status: ready ? 'ok' : 'failed', checks, optional, ...(this.instance ? { instance: this.instance } : {}) } };
  }

  close(): void {
    for (const { client } of this.clients) client.close();
  }
}
