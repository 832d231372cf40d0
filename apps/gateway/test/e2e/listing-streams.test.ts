import { eventually, startStack, type RunningStack } from '@glp/testing';
import { startLoad } from './faults/load';

const STREAM = 'method="/gitlab.projects.v1.ProjectsService/ListProjectsStream",code="OK"';

/**
 * Project listings go from the gateway to projects as listings of a few long-lived ListProjectsStream calls
 * (project-listing-streams.ts, projects' grpc/listing-stream.ts): each answered as its caller's own, the streams reused
 * across requests, and nothing lost or hung when projects shuts down with listings in flight (its streams end once
 * answered; what they left unanswered is sent again).
 */
describe('listings over ListProjectsStream', () => {
  let stack: RunningStack;
  const api = (path: string, token?: string) => fetch(`${stack.apiUrl}${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  /** A counter's value (summed over its label sets matching `labels`) on a service's /metrics. */
  const metric = async (url: string, name: string, labels = '') => {
    const text = await (await fetch(url)).text();
    return text.split('\n').filter((l) => l.startsWith(`${name}{`) && l.includes(labels)).reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_listing_streams', env: { GRPC_DEADLINE_MS: '5000' } });
    for (const [name, visibility] of [['stream-open', 'public'], ['stream-secret', 'private']]) {
      const res = await fetch(`${stack.apiUrl}/projects`, {
        method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, visibility }),
      });
      expect(res.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers each concurrent listing as its caller\'s own, over a few streams reused by every request', async () => {
    const opened = () => metric(stack.metricsUrls.gateway, 'glp_gateway_project_listing_streams_opened_total');
    const served = () => metric(stack.metricsUrls.projects, 'grpc_server_handling_seconds_count', STREAM);
    const [openedBefore, servedBefore] = [await opened(), await served()];
    const names = async (res: Response) => {
      expect(res.status).toBe(200);
      return ((await res.json()) as { name: string }[]).map((p) => p.name).filter((n) => n.startsWith('stream-')).sort();
    };
    const listings = await Promise.all(Array.from({ length: 40 }, (_, i) => api('/projects?search=stream-', i % 2 ? undefined : stack.rootToken).then(names)));
    expect(listings.filter((_, i) => i % 2 === 0)).toEqual(Array(20).fill(['stream-open', 'stream-secret']));
    expect(listings.filter((_, i) => i % 2 === 1)).toEqual(Array(20).fill(['stream-open']));
    expect(await served()).toBe(servedBefore + 40);
    // PROJECT_LIST_STREAMS (8) at most, whatever the number of listings
    expect((await opened()) - openedBefore).toBeLessThanOrEqual(8);
  });

  it('loses and hangs no listing when projects shuts down under them: each answered 200 or a clean 503, and listings go on after', async () => {
    const load = startLoad(stack, [{ name: 'GET /projects', path: '/projects?per_page=5' }], { concurrency: 6, clientTimeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 1000));
    const termAt = load.now();
    stack.signal('projects', 'SIGTERM');
    const exitCode = await stack.restart('projects');
    const exitedAt = load.now();
    await eventually(async () => (await api('/projects?per_page=1', stack.rootToken)).status === 200, 20_000, 50);
    await new Promise((r) => setTimeout(r, 1000));
    const samples = await load.stop();
    const resent = await metric(stack.metricsUrls.gateway, 'glp_gateway_project_listings_resent_total');
    const byStatus = samples.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s.status]: (acc[s.status] ?? 0) + 1 }), {});
    console.log(`SIGTERM projects under listings: exited ${exitedAt - termAt} ms after SIGTERM; ${samples.length} listings ${JSON.stringify(byStatus)}; ${resent} sent again`);
    expect(exitCode).toBe(0);
    // its streams ended once answered: the shutdown did not wait out SHUTDOWN_TIMEOUT_MS for them
    expect(exitedAt - termAt).toBeLessThan(5000);
    expect(samples.filter((s) => !(s.status === 200 || (s.status === 503 && s.body === '{"message":"503 Service Unavailable"}')))
      .map((s) => `${s.status} ${s.ms} ms ${s.body.slice(0, 200)}`)).toEqual([]);
    expect(samples.filter((s) => s.at > exitedAt + 3000).every((s) => s.status === 200)).toBe(true);
  }, 90_000);
});
