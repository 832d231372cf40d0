import type { projectsV1 } from '@glp/proto';
import { systemActor } from '@glp/service-kit';

/** One repo-admin shard: the replica serving a storage (its gRPC address and git HTTP listener). */
export interface ShardAddress {
  storage: string;
  grpcAddr: string;
  httpUrl: string;
}

/**
 * The shards: `default` from REPO_ADMIN_GRPC_ADDR / REPO_ADMIN_HTTP_URL, others from REPO_ADMIN_STORAGES
 * (`<storage>=<grpc host:port>|<http url>`, comma-separated; a `default=` entry replaces the first).
 */
export function parseShards(defaults: { grpcAddr: string; httpUrl: string }, storages: string): ShardAddress[] {
  const shards = new Map<string, ShardAddress>([['default', { storage: 'default', ...defaults }]]);
  for (const entry of storages.split(',').map((e) => e.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9._-]+)=([^|]+)\|(https?:\/\/\S+)$/.exec(entry);
    if (!m) throw new Error(`REPO_ADMIN_STORAGES: "${entry}" is not <storage>=<grpc host:port>|<http url>`);
    shards.set(m[1]!, { storage: m[1]!, grpcAddr: m[2]!, httpUrl: m[3]! });
  }
  return [...shards.values()];
}

/** What a request names its project by: a ProjectRef-like `project.selector`, or a bare `projectId`. */
type ProjectSelector = projectsV1.GetProjectRequest['selector'];

export function selectorOf(request: unknown): ProjectSelector | undefined {
  const r = request as { project?: { selector?: ProjectSelector }; projectId?: number } | undefined;
  if (r?.project?.selector) return r.project.selector;
  if (typeof r?.projectId === 'number' && r.projectId > 0) return { $case: 'id', value: r.projectId };
  return undefined;
}

const SERVICE = systemActor('gateway');

/**
 * Which shard holds a project's repository (its `repository_storage`). With one storage, no lookup at all. Otherwise
 * projects is asked (as a service: only the storage is used; the shard itself checks the caller), cached for `ttlMs`
 * (a project's storage never changes here: no storage moves). A project that cannot be resolved goes to `default`,
 * whose answer (404, moved) is the caller's.
 */
export class RepoAdminRouter<S> {
  private readonly cache = new Map<string, { storage: string; until: number }>();

  constructor(
    private readonly shards: ReadonlyMap<string, S>,
    private readonly projects: Pick<import('@glp/service-kit').PromiseClient<projectsV1.ProjectsServiceClient>, 'getProject'>,
    private readonly ttlMs = 60_000,
  ) {}

  get single(): boolean {
    return this.shards.size === 1;
  }

  shard(storage: string | undefined): S {
    return this.shards.get(storage || 'default') ?? this.shards.get('default')!;
  }

  async storageOf(selector: ProjectSelector | undefined): Promise<string> {
    if (this.single || !selector) return 'default';
    const key = `${selector.$case}:${String(selector.value).toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.storage;
    try {
      const { project } = await this.projects.getProject({ selector, withCustomAttributes: false, statistics: false }, { actor: SERVICE });
      const storage = project?.repositoryStorage || 'default';
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, { storage, until: Date.now() + this.ttlMs });
      return storage;
    } catch {
      return 'default';
    }
  }

  /** The shard for a request (by its project). */
  async shardFor(request: unknown): Promise<S> {
    return this.shard(await this.storageOf(selectorOf(request)));
  }

  /**
   * `pick(shard)` is a client (an object of methods); the result has the same methods, each sending the call to the shard
   * of its first argument's project. `close`/`raw` stay the default shard's.
   */
  routed<C extends object>(pick: (shard: S) => C): C {
    const base = pick(this.shard('default'));
    if (this.single) return base;
    return new Proxy(base, {
      get: (target, prop, receiver) => {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || prop === 'close' || prop === 'raw') return value;
        return async (...args: unknown[]) => {
          const client = pick(await this.shardFor(args[0])) as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return client[prop]!(...args);
        };
      },
    });
  }
}
