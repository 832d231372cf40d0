import type { HttpLoad } from './load';

/** What the scenarios need to know about the seeded stack. */
export interface ScenarioContext {
  /** http://127.0.0.1:port (autocannon's origin); paths carry /api/v4. */
  url: string;
  rootToken: string;
  memberToken: string;
  /** Seeded projects (ids 1..size). */
  size: number;
  namespaces: number;
  /** The project whose seeded access requests the approve scenario works through, and the first requester's id. */
  approveProjectId: number;
  firstRequesterId: number;
}

export interface Scenario {
  name: string;
  /** Compared across data sizes in the report (listings and single-project reads). */
  growth: boolean;
  load(ctx: ScenarioContext): HttpLoad;
}

/** Spread of ids the single-project reads cycle through (so one cached row does not stand for the table). */
const spreadIds = (size: number, n = 997) => Array.from({ length: Math.min(n, size) }, (_, i) => 1 + Math.floor((i * size) / Math.min(n, size)));
const pathOf = (id: number, namespaces: number) => encodeURIComponent(`team-${1 + (id % namespaces)}/project-${id}`);

const get = (ctx: ScenarioContext, path: string, token = ctx.rootToken): HttpLoad => ({ url: `${ctx.url}/api/v4${path}`, headers: { 'PRIVATE-TOKEN': token } });
const cycling = (ctx: ScenarioContext, paths: string[], token: string, method: HttpLoad['method'] = 'GET'): HttpLoad => {
  let n = 0;
  return { url: ctx.url, method, headers: { 'PRIVATE-TOKEN': token }, setupRequest: (req) => ({ ...req, method: method ?? 'GET', path: `/api/v4${paths[n++ % paths.length]}` }) };
};

/** The scenarios the performance targets name (targets.ts). */
export const ID_READ = 'GET /projects/:id';
/** The same read with the project's `namespace/path` as its `:id` (the "by id and by path"). */
export const PATH_READ = 'GET /projects/:path';
export const KEYSET_DEEP = 'GET /projects keyset, deep (admin)';
export const OFFSET_FILTERED = 'GET /projects offset page 25, visibility+order (admin)';

export const SCENARIOS: Scenario[] = [
  { name: ID_READ, growth: true, load: (c) => cycling(c, spreadIds(c.size).map((id) => `/projects/${id}`), c.rootToken) },
  // Projects the member may read (seeded visibility cycles private/internal/public by id % 3; a member of every 200th):
  // a signed-in non-administrator's read also needs their group levels (projects' group access cache).
  { name: 'GET /projects/:id (member)', growth: true, load: (c) => cycling(c, spreadIds(c.size).filter((id) => id % 3 !== 0 || id % 200 === 0).map((id) => `/projects/${id}`), c.memberToken) },
  { name: PATH_READ, growth: true, load: (c) => cycling(c, spreadIds(c.size).map((id) => `/projects/${pathOf(id, c.namespaces)}`), c.rootToken) },
  { name: 'GET /projects (admin)', growth: true, load: (c) => get(c, '/projects?per_page=20') },
  { name: 'GET /projects?membership=true (member)', growth: true, load: (c) => get(c, '/projects?membership=true&per_page=20', c.memberToken) },
  { name: 'GET /projects?search=4242 (member)', growth: true, load: (c) => get(c, '/projects?search=4242&per_page=20', c.memberToken) },
  { name: 'GET /projects?topic=t7 (member)', growth: true, load: (c) => get(c, '/projects?topic=t7&per_page=20', c.memberToken) },
  { name: 'GET /projects?order_by=last_activity_at (member)', growth: true, load: (c) => get(c, '/projects?order_by=last_activity_at&per_page=20', c.memberToken) },
  {
    name: KEYSET_DEEP, growth: true,
    load: (c) => get(c, `/projects?pagination=keyset&order_by=id&sort=asc&per_page=20&id_after=${Math.max(0, c.size - 100)}`),
  },
  {
    name: OFFSET_FILTERED, growth: true,
    load: (c) => get(c, '/projects?visibility=internal&order_by=last_activity_at&sort=desc&page=25&per_page=20'),
  },
  {
    name: 'POST /projects (admin)', growth: false,
    load: (c) => {
      let n = 0;
      const run = `${Date.now().toString(36)}-${c.size}`;
      return {
        url: c.url, method: 'POST', headers: { 'PRIVATE-TOKEN': c.rootToken },
        setupRequest: (req) => ({ ...req, method: 'POST', path: '/api/v4/projects', body: JSON.stringify({ name: `bench ${run} ${n++}` }) }),
      };
    },
  },
  {
    name: 'POST star/unstar (member)', growth: false,
    load: (c) => {
      // Each connection stars a project the member may read and unstars it again (a two-request sequence: 201 and 201),
      // then moves on to the next one. Internal and public projects are the ids that are not multiples of 3; every
      // 100th is starred by the seeding and skipped. Projects are taken in turn across the levels of a size and reused
      // from the start once all were used. A sequence cut by the end of a run leaves its project starred, so a reuse
      // can answer 304 once: with public projects alone (3,300 at 10,000) run 13 went round once and met one.
      const readableIds = Array.from({ length: c.size }, (_, i) => i + 1).filter((id) => id % 3 !== 0 && id % 100 !== 0);
      let next = 0;
      return {
        url: c.url, method: 'POST', headers: { 'PRIVATE-TOKEN': c.memberToken },
        sequence: [
          {
            method: 'POST',
            setupRequest: (req, context) => {
              const id = readableIds[next++ % readableIds.length]!;
              context.project = id;
              return { ...req, method: 'POST', path: `/api/v4/projects/${id}/star` };
            },
          },
          { method: 'POST', setupRequest: (req, context) => ({ ...req, method: 'POST', path: `/api/v4/projects/${context.project as number}/unstar` }) },
        ],
      };
    },
  },
  {
    name: 'PUT access request approve (admin)', growth: false,
    load: (c) => {
      let user = c.firstRequesterId;
      return {
        url: c.url, method: 'PUT', headers: { 'PRIVATE-TOKEN': c.rootToken },
        setupRequest: (req) => ({ ...req, method: 'PUT', path: `/api/v4/projects/${c.approveProjectId}/access_requests/${user++}/approve`, body: '{}' }),
      };
    },
  },
];

export function selectedScenarios(filter: string): Scenario[] {
  const words = filter.split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);
  return words.length ? SCENARIOS.filter((s) => words.some((w) => s.name.toLowerCase().includes(w))) : SCENARIOS;
}
