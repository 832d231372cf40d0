import { projectsV1 } from '@glp/proto';
import { registry, type Actor } from '@glp/service-kit';
import type { ProjectRow } from '../store/project-rows';
import { EncodedProjectCache, encodeListProjectsResponse, encodingKey, keptProject, withEncodingKey } from './encoded-projects';

const project = (id: number, name: string) => projectsV1.Project.fromPartial({ id, name, path: name, topics: ['a'], namespace: { id: 7, name: 'ns' } });
const alice: Actor = { kind: 'user', id: 2, username: 'alice', admin: false, scopes: ['api'] };
const row = (over: Partial<ProjectRow> = {}) => ({ id: 5, row_version: '100', namespace_version: '90', member_access: 0, self_contained: true, ...over }) as ProjectRow;
const levels = { groupAccess: 0, shareAccess: 0 };

describe('encoded projects', () => {
  it('writes ListProjectsResponse as the generated encoder does, kept or not, whatever the total and `more`', () => {
    const cache = new EncodedProjectCache(1 << 20);
    for (const [total, more] of [[0, false], [-1, false], [-1, true], [0, true], [3, false], [123_456_789_012, false]] as const) {
      const res = { projects: [withEncodingKey(project(1, 'a'), 'k1'), project(2, 'b'), withEncodingKey(project(3, 'c'), 'k3')], total, more };
      const expected = Buffer.from(projectsV1.ListProjectsResponse.encode(res).finish());
      expect(encodeListProjectsResponse(res, cache)).toEqual(expected);
      expect(encodeListProjectsResponse(res, cache)).toEqual(expected);
    }
    expect(cache.stats.entries).toBe(2);
  });

  it('writes each project\'s length in as many varint bytes as it needs (one, two, three)', () => {
    const cache = new EncodedProjectCache(1 << 20);
    for (const size of [0, 1, 100, 127, 128, 300, 16_383, 16_384, 70_000]) {
      const res = { projects: [project(1, 'a'), withEncodingKey(projectsV1.Project.fromPartial({ id: 2, description: 'd'.repeat(size) }), `big${size}`)], total: -1, more: false };
      expect(encodeListProjectsResponse(res, cache)).toEqual(Buffer.from(projectsV1.ListProjectsResponse.encode(res).finish()));
    }
    expect(encodeListProjectsResponse({ projects: [], total: 0, more: false }, cache)).toEqual(Buffer.alloc(0));
  });

  it('answers a key with the encoding kept under it, and keeps nothing with 0 bytes', () => {
    const cache = new EncodedProjectCache(1 << 20);
    const first = cache.encode(withEncodingKey(project(1, 'first'), 'same'));
    // Another project under the same key: the key says they are the same, so the kept bytes answer.
    expect(cache.encode(withEncodingKey(project(1, 'other'), 'same'))).toBe(first);
    expect(projectsV1.Project.decode(cache.encode(withEncodingKey(project(1, 'other'), 'another'))).name).toBe('other');
    const none = new EncodedProjectCache(0);
    expect(projectsV1.Project.decode(none.encode(withEncodingKey(project(1, 'x'), 'same'))).name).toBe('x');
    expect(projectsV1.Project.decode(none.encode(withEncodingKey(project(1, 'y'), 'same'))).name).toBe('y');
    expect(none.stats.entries).toBe(0);
  });

  it('counts hits and misses when the metrics are scraped (glp_projects_encoded_projects_total)', async () => {
    // [hits, misses] as a scrape reads them (the counter's collect() adds what was counted since the last one).
    const counts = async () => {
      const { values } = await registry.getSingleMetric('glp_projects_encoded_projects_total')!.get();
      return ['hit', 'miss'].map((result) => values.find((v) => v.labels.result === result)?.value ?? 0);
    };
    const [hits = 0, misses = 0] = await counts();
    const cache = new EncodedProjectCache(1 << 20);
    cache.encode(withEncodingKey(project(1, 'a'), 'counted'));
    cache.encode(withEncodingKey(project(1, 'a'), 'counted'));
    cache.kept('counted');
    cache.kept('never kept');
    expect(await counts()).toEqual([hits + 2, misses + 1]);
    // Counted once: a second scrape adds nothing.
    expect(await counts()).toEqual([hits + 2, misses + 1]);
  });

  it('writes a stand-in for a kept encoding as those bytes, in its place among projects encoded now', () => {
    const cache = new EncodedProjectCache(1 << 20);
    expect(cache.kept('k2')).toBeUndefined();
    const bytes = cache.encode(withEncodingKey(project(2, 'b'), 'k2'));
    const kept = cache.kept('k2');
    expect(kept).toBe(bytes);
    const standIn = keptProject(2, kept!);
    expect(standIn.id).toBe(2);
    const res = { projects: [project(1, 'a'), standIn, withEncodingKey(project(3, 'c'), 'k3')], total: 3, more: false };
    const expected = projectsV1.ListProjectsResponse.encode({ projects: [project(1, 'a'), project(2, 'b'), project(3, 'c')], total: 3, more: false }).finish();
    expect(encodeListProjectsResponse(res, cache)).toEqual(Buffer.from(expected));
  });

  it('keys a project by its row versions, the caller\'s membership and access; none when it reads other rows or extras', () => {
    const base = encodingKey(row(), alice, levels, false);
    expect(base).toBeDefined();
    const variants = [
      encodingKey(row({ row_version: '101' }), alice, levels, false),
      encodingKey(row({ namespace_version: '91' }), alice, levels, false),
      encodingKey(row({ member_access: 30 }), alice, levels, false),
      encodingKey(row({ id: 6 }), alice, levels, false),
      encodingKey(row(), { ...alice, id: 3 }, levels, false),
      encodingKey(row(), { ...alice, admin: true }, levels, false),
      encodingKey(row(), { ...alice, external: true }, levels, false),
      encodingKey(row(), { ...alice, kind: 'anonymous', id: 0 }, levels, false),
      encodingKey(row(), alice, { groupAccess: 30, shareAccess: 0 }, false),
      encodingKey(row(), alice, { groupAccess: 0, shareAccess: 20 }, false),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    expect(encodingKey(row({ self_contained: false }), alice, levels, false)).toBeUndefined();
    expect(encodingKey(row(), alice, levels, true)).toBeUndefined();
  });
});
