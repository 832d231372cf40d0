import { REPO_ROOT, startStack, type RunningStack, type StackService } from '@glp/testing';

/**
 * A rolling restart as Kubernetes does it for a Deployment (maxSurge 1, maxUnavailable 0): the new process starts
 * beside the old one, takes the service's address once it answers, and the old one drains on SIGTERM. Clients going
 * on with creates, reads and listings through the gateway see no failed request while the gateway, identity and
 * projects are replaced one after the other (`npm run test:upgrade` does the same from the previous release).
 */
describe('rolling restart under load', () => {
  let stack: RunningStack;
  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_rolling', rolling: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers every request while the gateway, identity and projects are replaced one at a time', async () => {
    const failures: string[] = [];
    const created: number[] = [];
    let requests = 0;
    let stopping = false;
    const call = async (method: string, url: string, expected: number, body?: object) => {
      requests++;
      try {
        const res = await fetch(`${stack.apiUrl}${url}`, {
          method,
          headers: { 'PRIVATE-TOKEN': stack.rootToken, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const json = (await res.json()) as { id?: number };
        if (res.status !== expected) failures.push(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
        return res.status === expected ? json : undefined;
      } catch (err) {
        failures.push(`${method} ${url}: ${err instanceof Error ? `${err.message} ${String((err as { cause?: unknown }).cause ?? '')}` : String(err)}`);
        return undefined;
      }
    };
    const writer = async (w: number) => {
      for (let i = 0; !stopping; i++) {
        const p = await call('POST', '/projects', 201, { name: `rolling-${w}-${i}` });
        if (p?.id) created.push(p.id);
      }
    };
    const reader = async () => {
      while (!stopping) {
        await call('GET', '/projects?per_page=20&order_by=id', 200);
        const id = created[created.length - 1];
        if (id) await call('GET', `/projects/${id}`, 200);
      }
    };
    const load = Promise.all([writer(0), writer(1), reader()]);

    const took: Partial<Record<StackService, number>> = {};
    await new Promise((r) => setTimeout(r, 1000));
    for (const service of ['gateway', 'identity', 'projects'] as const) {
      took[service] = (await stack.replace(service, { root: REPO_ROOT })).tookMs;
      await new Promise((r) => setTimeout(r, 500));
    }
    stopping = true;
    await load;

    console.log(`rolling restart: ${requests} requests, ${failures.length} failed; replaced in ${JSON.stringify(took)} ms`);
    expect(failures).toEqual([]);
    expect(created.length).toBeGreaterThan(20);
    // Every project created during the restart is there afterwards.
    const last = await call('GET', `/projects/${created[created.length - 1]}`, 200);
    expect(last?.id).toBe(created[created.length - 1]);
  });
});
