import { parseShards, RepoAdminRouter, selectorOf } from './repo-admin-router';

describe('repo-admin storage routing', () => {
  it('reads the shards: default from its own settings, others from REPO_ADMIN_STORAGES', () => {
    expect(parseShards({ grpcAddr: 'a:1', httpUrl: 'http://a:2' }, '')).toEqual([{ storage: 'default', grpcAddr: 'a:1', httpUrl: 'http://a:2' }]);
    expect(parseShards({ grpcAddr: 'a:1', httpUrl: 'http://a:2' }, 'shard-2=b:1|http://b:2, default=c:1|http://c:2')).toEqual([
      { storage: 'default', grpcAddr: 'c:1', httpUrl: 'http://c:2' },
      { storage: 'shard-2', grpcAddr: 'b:1', httpUrl: 'http://b:2' },
    ]);
    expect(() => parseShards({ grpcAddr: 'a:1', httpUrl: 'http://a:2' }, 'bad')).toThrow(/REPO_ADMIN_STORAGES/);
  });

  it('finds the project a request names', () => {
    expect(selectorOf({ project: { selector: { $case: 'fullPath', value: 'a/b' } } })).toEqual({ $case: 'fullPath', value: 'a/b' });
    expect(selectorOf({ projectId: 7 })).toEqual({ $case: 'id', value: 7 });
    expect(selectorOf({ url: 'x' })).toBeUndefined();
  });

  it('sends each call to the shard of its project, asking projects once per project, and never with one storage', async () => {
    const getProject = jest.fn(async (r: { selector?: { value: unknown } }) => ({ project: { repositoryStorage: r.selector?.value === 2 ? 'shard-2' : 'default' } }));
    const calls: string[] = [];
    const client = (name: string) => ({ getLanguages: async (req: unknown) => { calls.push(`${name}:${JSON.stringify(req)}`); return name; } });
    const router = new RepoAdminRouter(new Map([['default', 'default'], ['shard-2', 'shard-2']]), { getProject } as never);
    const routed = router.routed((s) => client(s));
    expect(await routed.getLanguages({ projectId: 2 })).toBe('shard-2');
    expect(await routed.getLanguages({ projectId: 2 })).toBe('shard-2');
    expect(await routed.getLanguages({ projectId: 1 })).toBe('default');
    expect(await routed.getLanguages({})).toBe('default');
    expect(getProject).toHaveBeenCalledTimes(2);

    const one = new RepoAdminRouter(new Map([['default', 'default']]), { getProject } as never);
    const plain = client('default');
    expect(one.routed(() => plain)).toBe(plain);
  });
});
