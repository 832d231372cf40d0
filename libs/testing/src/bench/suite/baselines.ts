import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { projectsV1 } from '@glp/proto';
import { createGrpcClient, DEV_ACTOR_SECRET, type Actor } from '@glp/service-kit';
import { REPO_ROOT } from '../../infra';
import type { RunningStack } from '../../stack';
import { closedLoop } from './load';
import type { LoadNumbers } from './measurement';

/** The ceiling: a bare Node `http` server in its own process (as the gateway is) answering every request with `body`. */
export async function startBareServer(body: string): Promise<{ url: string; stop(): void }> {
  const script = `
    const body = Buffer.from(process.env.BENCH_BODY);
    const server = require('node:http').createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
    server.keepAliveTimeout = 65000;
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, BENCH_BODY: body }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(Number(m)));
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}

/** The caller the gateway signs for the root token (an admin user). */
const ROOT_ACTOR: Actor = { kind: 'user', id: 1, username: 'root', admin: true, scopes: ['api'] };

/** The gateway's share: projects' GetProject over gRPC with a signed actor, on one channel, `workers` in a closed loop. */
export async function grpcGetProject(stack: RunningStack, ids: number[], workers: number, seconds: number, warmup: number): Promise<LoadNumbers> {
  const client = createGrpcClient(projectsV1.ProjectsServiceClient, stack.grpcAddrs.projects, { actorSecret: process.env.ACTOR_SECRET || DEV_ACTOR_SECRET });
  try {
    return await closedLoop(async (w, i) => {
      const id = ids[(w * 7919 + i) % ids.length]!;
      const res = await client.getProject({ selector: { $case: 'id', value: id }, withCustomAttributes: false, statistics: false }, { actor: ROOT_ACTOR });
      if (res.project?.id !== id) throw new Error(`GetProject ${id} answered ${res.project?.id}`);
    }, workers, seconds, warmup);
  } finally {
    client.close();
  }
}

/**
 * The database's share: the statement projects' store runs for GET /projects/:id (PROJECT_SELECT from the built
 * service, prepared by name as the store does), one connection per worker, in a closed loop.
 */
export async function sqlGetProject(databaseUrl: string, stack: RunningStack, ids: number[], workers: number, seconds: number, warmup: number): Promise<LoadNumbers> {
  const rows = require(path.join(REPO_ROOT, 'apps/projects/dist/store/project-rows.js')) as { PROJECT_SELECT: string };
  const text = `${rows.PROJECT_SELECT} WHERE p.id = $2`;
  const clients = await Promise.all(Array.from({ length: workers }, async () => {
    const c = new Client({ connectionString: databaseUrl, options: `-c search_path=${stack.schemas.projects},public` });
    await c.connect();
    return c;
  }));
  try {
    return await closedLoop(async (w, i) => {
      const id = ids[(w * 7919 + i) % ids.length]!;
      const r = await clients[w]!.query({ name: 'project_by_id', text, values: [ROOT_ACTOR.id, id] });
      if (r.rowCount !== 1) throw new Error(`project ${id}: ${r.rowCount} rows`);
    }, workers, seconds, warmup);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}
