import { projectsV1 } from '@glp/proto';
import {
  DomainError, currentContext, requestGrpcCalls, runWithContext, signActor, verifyActor, type Actor, type ClientCallOptions,
} from '@glp/service-kit';
import { status } from '@grpc/grpc-js';
import { ProjectReadBatcher, type ProjectReadsClient } from './project-read-batcher';

const SECRET = 'spec-secret';
const user = (id: number, username: string, admin = false): Actor => ({ kind: 'user', id, username, admin, scopes: ['api'] });
const root = user(1, 'root', true);
const alice = user(2, 'alice');
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };
const GET_PROJECTS = '/gitlab.projects.v1.ProjectsService/GetProjects';
const byId = (id: number) => projectsV1.GetProjectRequest.fromPartial({ selector: { $case: 'id', value: id } });
const project = (id: number, caller: string) => projectsV1.Project.fromPartial({ id, name: `p${id} for ${caller}` });

/** A projects stand-in: each project id answers for every caller but anonymous (who gets NOT_FOUND), id 7 is MOVED to 70. */
function fakeProjects(opts: { unimplemented?: boolean; fail?: DomainError } = {}) {
  const seen = { batches: [] as { items: { id: number; caller: Actor; requestId: string }[]; callActor?: string; context: boolean }[], singles: [] as { id: number; caller?: string; context: boolean }[] };
  const answer = (id: number, caller: Actor): projectsV1.GetProjectsResult => {
    if (id === 7) return { result: { $case: 'error', value: { kind: 'moved', message: 'Project', fieldsJson: '', movedToId: 70 } } };
    if (caller.kind === 'anonymous') return { result: { $case: 'error', value: { kind: 'not_found', message: 'Project', fieldsJson: '', movedToId: 0 } } };
    return { result: { $case: 'project', value: project(id, caller.username) } };
  };
  const client: ProjectReadsClient<projectsV1.Project> = {
    async getProject(request: projectsV1.GetProjectRequest, o?: ClientCallOptions) {
      const id = request.selector?.$case === 'id' ? request.selector.value : 0;
      seen.singles.push({ id, caller: (o?.actor ?? currentContext()?.actor)?.username, context: currentContext() !== undefined });
      const r = answer(id, o?.actor ?? currentContext()!.actor!).result!;
      if (r.$case === 'error') throw new DomainError(r.value.kind as 'not_found', r.value.message, undefined, r.value.movedToId || undefined);
      return { project: r.value };
    },
    async getProjects(request: projectsV1.GetProjectsRequest, o?: ClientCallOptions) {
      if (opts.unimplemented) throw Object.defineProperty(new DomainError('internal', 'not implemented'), 'grpcCode', { value: status.UNIMPLEMENTED });
      if (opts.fail) throw opts.fail;
      // Each item's caller is verified as projects does: signed for GetProjects with the shared secret.
      const items = request.items.map((i) => ({
        id: i.request?.selector?.$case === 'id' ? i.request.selector.value : 0,
        caller: verifyActor(i.actor?.payload, i.actor?.signature, SECRET, GET_PROJECTS, 300, Date.now(), projectsV1.GetProjectRequest.encode(i.request!).finish()),
        requestId: i.requestId,
      }));
      seen.batches.push({ items, callActor: o?.actor?.username, context: currentContext() !== undefined });
      return { results: items.map((i) => answer(i.id, i.caller)) };
    },
    signActorFor: (_method, actor, body) => signActor(actor, SECRET, GET_PROJECTS, Date.now(), body),
  };
  return { client, seen };
}

/** `read` as a request of `actor` would call it: inside that request's context. */
const readAs = (batcher: ProjectReadBatcher<projectsV1.Project>, actor: Actor, id: number, requestId = `req-${actor.username || 'anon'}-${id}`) =>
  runWithContext({ requestId, actor, operation: 'GET /projects/:id' }, () => batcher.read(byId(id)));

const settle = <T>(p: Promise<T>) => p.then((value) => ({ value }), (error: unknown) => ({ error }));

describe('ProjectReadBatcher', () => {
  it('sends the reads of one turn of the event loop as one GetProjects call, each item with its own signed caller and request id', async () => {
    const { client, seen } = fakeProjects();
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100 });
    const [a, b, c] = await Promise.all([readAs(batcher, root, 1), readAs(batcher, alice, 2), settle(readAs(batcher, anonymous, 3))]);
    expect(a.project).toEqual(project(1, 'root'));
    expect(b.project).toEqual(project(2, 'alice'));
    expect((c as { error: DomainError }).error).toMatchObject({ kind: 'not_found', message: 'Project' });
    expect(seen.singles).toEqual([]);
    expect(seen.batches).toHaveLength(1);
    expect(seen.batches[0]).toMatchObject({ callActor: 'gateway', context: false });
    expect(seen.batches[0].items.map((i) => [i.id, i.caller.username, i.caller.admin, i.requestId])).toEqual([
      [1, 'root', true, 'req-root-1'], [2, 'alice', false, 'req-alice-2'], [3, '', false, 'req-anon-3'],
    ]);
  });

  it('keeps an item error whole: MOVED carries the project id the old path leads to', async () => {
    const { client } = fakeProjects();
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100 });
    const [moved, fine] = await Promise.all([settle(readAs(batcher, alice, 7)), readAs(batcher, alice, 8)]);
    expect((moved as { error: DomainError }).error).toBeInstanceOf(DomainError);
    expect((moved as { error: DomainError }).error).toMatchObject({ kind: 'moved', movedToId: 70 });
    expect(fine.project?.id).toBe(8);
  });

  it('a read alone is a plain GetProject call of its caller, made outside the request context', async () => {
    const { client, seen } = fakeProjects();
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100 });
    expect((await readAs(batcher, alice, 5)).project?.id).toBe(5);
    expect(seen.batches).toEqual([]);
    expect(seen.singles).toEqual([{ id: 5, caller: 'alice', context: false }]);
  });

  it('counts one gRPC call per read for the request, however many reads share the call', async () => {
    const { client } = fakeProjects();
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100 });
    const counted = async () => (await requestGrpcCalls.get()).values.find((v) => v.labels.method === 'GET /projects/:id')?.value ?? 0;
    const before = await counted();
    await Promise.all([1, 2, 3, 4].map((id) => readAs(batcher, root, id)));
    expect(await counted()).toBe(before + 4);
  });

  it('splits at maxBatch, and waits windowMs for more reads when set', async () => {
    const { client, seen } = fakeProjects();
    const small = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((id) => readAs(small, root, id)));
    expect(seen.batches.map((b) => b.items.map((i) => i.id))).toEqual([[1, 2], [3, 4]]);
    expect(seen.batches.map((b) => b.context)).toEqual([false, false]); // a full batch is sent outside the request that filled it
    expect(seen.singles.map((s) => s.id)).toEqual([5]);

    const windowed = fakeProjects();
    const patient = new ProjectReadBatcher(windowed.client, { windowMs: 30, maxBatch: 100 });
    const first = readAs(patient, root, 1);
    await new Promise((r) => setTimeout(r, 5)); // a later turn of the event loop, within the window
    await Promise.all([first, readAs(patient, alice, 2)]);
    expect(windowed.seen.batches.map((b) => b.items.map((i) => i.id))).toEqual([[1, 2]]);
  });

  it('fails every read of a batch whose call fails (projects unavailable)', async () => {
    const { client } = fakeProjects({ fail: new DomainError('unavailable', 'a dependency is unavailable') });
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100 });
    const results = await Promise.all([settle(readAs(batcher, root, 1)), settle(readAs(batcher, alice, 2))]);
    expect(results.map((r) => (r as { error: DomainError }).error.kind)).toEqual(['unavailable', 'unavailable']);
  });

  it('falls back to GetProject per read when projects does not have GetProjects yet (a rolling upgrade)', async () => {
    const { client, seen } = fakeProjects({ unimplemented: true });
    const batcher = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 100, fallbackMs: 60_000 });
    const [a, b] = await Promise.all([readAs(batcher, root, 1), readAs(batcher, alice, 2)]);
    expect([a.project?.name, b.project?.name]).toEqual(['p1 for root', 'p2 for alice']);
    expect(seen.singles.map((s) => [s.id, s.caller])).toEqual([[1, 'root'], [2, 'alice']]);
    // and for a while afterwards, reads go one by one at once (in their request's context)
    await Promise.all([readAs(batcher, root, 3), readAs(batcher, alice, 4)]);
    expect(seen.singles.slice(2)).toEqual([{ id: 3, caller: 'root', context: true }, { id: 4, caller: 'alice', context: true }]);
  });

  it('maxBatch 1 turns batching off', async () => {
    const { client, seen } = fakeProjects();
    const off = new ProjectReadBatcher(client, { windowMs: 0, maxBatch: 1 });
    await Promise.all([readAs(off, root, 1), readAs(off, alice, 2)]);
    expect(seen.batches).toEqual([]);
    expect(seen.singles.map((s) => s.context)).toEqual([true, true]);
  });
});
