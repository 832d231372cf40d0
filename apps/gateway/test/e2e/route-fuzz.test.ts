import fc from 'fast-check';
import { Pool } from 'pg';
import { startStack, type RunningStack } from '@glp/testing';
import type { RouteDef } from '../../src/http/route';
import { movedPermanentlyText } from '../../src/http/moved-project';
import { apiRoutes } from '../../src/routes';
import { brokenInvariants, INVARIANTS, invariantsThatCannotFail, settledOutboxes } from './fuzz/db-invariants';
import { settledRowCounts } from './fuzz/row-counts';
import { knownBadRequest, routeKey, routeRequest, type FuzzContext, type RequestSpec } from './fuzz/route-requests';
import { describe as describeWire, httpClient, toWire, type Tokens, type WireRequest, type WireResponse } from './fuzz/wire';

/**
 * Property-based fuzzing of EVERY route in the route table (`apiRoutes`, the list app.ts mounts), with requests
 * generated from each route's param schema (see fuzz/). Against one booted stack:
 *  1. known-bad requests (any request plus one poison: NUL, bad escapes, invalid JSON/UTF-8/multipart, a missing
 *     or invalid param, no/unknown/non-admin caller) are all answered 4xx, and the row counts of every table of
 *     both services' schemas are the same before and after them;
 *  2. any requests (valid or not, as anonymous, a user, the administrator) are never answered 5xx;
 *  3. afterwards, once outboxes and consumers have settled, the database invariants of fuzz/db-invariants.ts hold
 *     in every schema of the stack (no orphan or half-written row), and each of them is shown able to fail.
 * Every response: JSON is `application/json` exactly and parses, the malformed-request 400 is `text/plain`
 * `Bad Request`, HEAD has no body, a body over BODY_LIMIT (1 MB here) is 413 `{"message":"413 Request Entity Too Large"}`.
 * Reproduce a failure with FUZZ_SEED=<seed printed by fast-check>; FUZZ_REQUESTS scales the run (default 10,400, of
 * which a quarter known-bad; about 35 s on 2 cores).
 */

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 10_400);
const BATCH = 40;
const CONCURRENCY = 12;
const KNOWN_BAD_RUNS = Math.max(1, Math.round((TOTAL * 0.25) / BATCH));
const ANY_RUNS = Math.max(1, Math.round(TOTAL / BATCH) - KNOWN_BAD_RUNS);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

const TOO_LARGE = '{"message":"413 Request Entity Too Large"}';

const routes: RouteDef[] = apiRoutes('18.6.0', 'fuzz');

/** The file type a route answers on success, if it answers a file (RouteDef `produces`). */
const produces = new Map(routes.filter((r) => r.produces).map((r) => [routeKey(r), r.produces!]));

function problems(w: WireRequest, r: WireResponse, route: string): string[] {
  const out: string[] = [];
  if (r.status >= 500) out.push(`status ${r.status}`);
  if (w.method === 'HEAD' && r.body.length > 0) out.push('HEAD answered with a body');
  if (r.status === 431) return out; // Node's own answer to a request line + headers over 16 KB; the app never saw it
  // A project reached by a path an earlier fuzzed request moved it from (rename, transfer): GitLab's 301, plain text
  // without a Content-Type, the same URL with the project id in Location (http/moved-project.ts).
  const location = r.headers.location;
  if (r.status === 301 && typeof location === 'string') {
    if (w.method !== 'HEAD' && r.body.toString() !== movedPermanentlyText(location)) out.push(`301 body ${r.body.toString().slice(0, 80)}`);
    return out;
  }
  // A file route's success is its declared file type, streamed (Content-Length only when the size is known).
  const file = produces.get(route);
  if (file && r.status < 300) {
    if (r.headers['content-type'] !== file) out.push(`Content-Type ${String(r.headers['content-type'])}, declared ${file}`);
    return out;
  }
  const type = r.headers['content-type'];
  if (r.body.length === 0 && w.method !== 'HEAD') return out;
  if (type === 'text/plain') {
    if (r.status !== 400 || (w.method !== 'HEAD' && r.body.toString() !== 'Bad Request')) out.push(`text/plain ${r.status} ${r.body.toString().slice(0, 80)}`);
  } else if (type !== 'application/json') out.push(`Content-Type ${String(type)}`);
  else if (w.method !== 'HEAD') {
    try {
      JSON.parse(r.body.toString());
    } catch {
      out.push('body is not JSON');
    }
  }
  if (r.headers['content-length'] === undefined && r.status !== 204 && r.status !== 304) out.push('no Content-Length');
  return out;
}

describe('route fuzzing (every route, generated from its param schema)', () => {
  let stack: RunningStack;
  let pool: Pool;
  let client: ReturnType<typeof httpClient>;
  let ctx: FuzzContext;
  let tokens: Tokens;
  const statuses = new Map<number, number>();
  const perRoute = new Map<string, number>();
  let sent = 0;
  const serverErrors = () => [...statuses].reduce((n, [status, count]) => n + (status >= 500 ? count : 0), 0);

  async function run(specs: RequestSpec[], expect4xx: boolean): Promise<string[]> {
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < specs.length) {
        const spec = specs[next++]!;
        const wire = toWire(spec, tokens);
        let res: WireResponse;
        try {
          res = await client.send(wire);
        } catch (err) {
          failures.push(`${(err as Error).message}: ${describeWire(wire)}`);
          continue;
        }
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        perRoute.set(spec.route, (perRoute.get(spec.route) ?? 0) + 1);
        const found = problems(wire, res, spec.route);
        if (expect4xx && (res.status < 400 || res.status >= 500)) found.push(`known-bad (${spec.poison}) answered ${res.status}`);
        // Over BODY_LIMIT: 413 with GitLab's JSON body, unless the path was already refused as malformed (400 text/plain).
        const malformed = res.status === 400 && res.headers['content-type'] === 'text/plain';
        if (spec.poison === 'oversized-json' && !malformed && (res.status !== 413 || (wire.method !== 'HEAD' && res.body.toString() !== TOO_LARGE))) {
          found.push(`oversized body answered ${res.status}`);
        }
        if (found.length > 0) failures.push(`${found.join('; ')} ← ${describeWire(wire)} → ${res.status} ${res.body.subarray(0, 200).toString()}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return failures;
  }

  const property = (arb: fc.Arbitrary<RequestSpec>, expect4xx: boolean) =>
    fc.asyncProperty(fc.array(arb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
      const failures = await run(batch, expect4xx);
      if (failures.length > 0) throw new Error(`${failures.length} bad answers:\n${failures.slice(0, 10).join('\n')}`);
    });

  beforeAll(async () => {
    stack = await startStack({ name: 'e2e_fuzz', env: { BODY_LIMIT: '1mb' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    client = httpClient(stack.url, CONCURRENCY);
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number; token: string; path_with_namespace: string };
    };
    const root = await call('GET', '/user', stack.rootToken);
    const user = await call('POST', '/users', stack.rootToken, { username: 'fuzzer', name: 'Fuzzer', email: 'fuzzer@example.com', password: 'fuzzer-pass-123' });
    const pat = await call('POST', `/users/${user.id}/personal_access_tokens`, stack.rootToken, { name: 'fuzz', scopes: ['api', 'read_user'] });
    tokens = { user: pat.token, admin: stack.rootToken };
    const own = await call('POST', '/projects', tokens.user, { name: 'fuzz-private' });
    const pub = await call('POST', '/projects', tokens.admin, { name: 'fuzz-public', visibility: 'public' });
    ctx = {
      projectIds: [own.id, pub.id],
      projectPaths: [own.path_with_namespace, pub.path_with_namespace, 'root/no-such-project'],
      userIds: [root.id, user.id],
    };
    console.log(`route fuzz: seed ${SEED} (FUZZ_SEED=${SEED} reproduces), ${routes.length} routes: ${routes.map(routeKey).join(', ')}`);
  }, 120_000);

  afterAll(async () => {
    if (process.env.FUZZ_DEBUG_LOG) require('node:fs').writeFileSync(process.env.FUZZ_DEBUG_LOG, stack?.logs() ?? '');
    const histogram = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
    console.log(`route fuzz: ${sent} requests, ${serverErrors()} 5xx`);
    console.log(`route fuzz: ${sent} requests; statuses ${JSON.stringify(histogram)}; per route ${JSON.stringify(Object.fromEntries(perRoute))}`);
    client?.close();
    await pool?.end();
    await stack?.stop();
  });

  it('answers known-bad requests to every route with a 4xx and changes no row in any table', async () => {
    const before = await settledRowCounts(pool, stack.schemas);
    expect(before[`${stack.schemas.identity}.users`]).toBeGreaterThanOrEqual(2); // both schemas are counted
    expect(before[`${stack.schemas.projects}.projects`]).toBe(2);
    const start = sent;
    const knownBad = fc.constantFrom(...routes).chain((route) => knownBadRequest(route, ctx));
    await fc.assert(property(knownBad, true), { numRuns: KNOWN_BAD_RUNS, seed: SEED, endOnFailure: true });
    expect(sent - start).toBe(KNOWN_BAD_RUNS * BATCH);
    const after = await settledRowCounts(pool, stack.schemas);
    expect(after).toEqual(before);

    // The comparison sees writes: one accepted request changes the counts.
    const created = await client.send(toWire(controlWrite('fuzz-control'), tokens));
    expect(created.status).toBe(201);
    const changed = await settledRowCounts(pool, stack.schemas);
    expect(changed[`${stack.schemas.projects}.projects`]).toBe(before[`${stack.schemas.projects}.projects`]! + 1);
  }, 120_000);

  it('never answers any request to any route with a 5xx, as anonymous, a user or the administrator', async () => {
    const anyRequest = fc.constantFrom(...routes).chain((route) => routeRequest(route, ctx));
    const start = sent;
    await fc.assert(property(anyRequest, false), { numRuns: ANY_RUNS, seed: SEED + 1, endOnFailure: true });
    expect(sent - start).toBe(ANY_RUNS * BATCH);
    expect([...perRoute.keys()].sort()).toEqual(routes.map(routeKey).sort());
  }, 180_000);

  it('leaves no orphan or half-written row in any schema, and sent at least 10,000 requests without a 5xx', async () => {
    await settledOutboxes(pool, stack.schemas);
    await settledRowCounts(pool, stack.schemas); // the consumers have caught up (namespaces replicated, counts still)
    // Event-fed copies (hooks, push rules, repositories, access requests) follow deletions a little later.
    let broken = await brokenInvariants(pool, stack.schemas);
    for (let i = 0; i < 20 && broken.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      broken = await brokenInvariants(pool, stack.schemas);
    }
    expect(broken).toEqual([]);
    // The queries read the live schemas: a push rule of a missing project (no FK across services), inserted in a
    // transaction that is rolled back, is reported.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${stack.schemas.pushRules}.push_rules (project_id) VALUES (987654321)`);
      expect(await brokenInvariants(client, stack.schemas)).toEqual([expect.stringMatching(/^push rule of a missing project: \[\{"project_id":"?987654321"?\}\]$/)]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }

    // Each invariant can fail: its violation, inserted into a constraint-free scratch copy of the schemas, is seen.
    expect(await invariantsThatCannotFail(pool, stack.schemas, `${stack.schemas.projects}_inv`)).toEqual([]);
    expect(INVARIANTS.length).toBeGreaterThanOrEqual(25);

    expect(serverErrors()).toBe(0);
    if (process.env.FUZZ_REQUESTS === undefined) expect(sent).toBeGreaterThanOrEqual(10_000);
  }, 90_000);
});

/** A valid JSON POST /projects as the administrator (the control write). */
function controlWrite(name: string): RequestSpec {
  return { route: 'POST /projects', method: 'POST', path: '/projects', query: {}, body: { name }, encoding: 'json', caller: 'admin', via: 'header', files: [] };
}
