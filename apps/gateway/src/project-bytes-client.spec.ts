import { projectsV1 } from '@glp/proto';
import { encodedProjectId, splitGetProjectResponse, splitGetProjectsResponse, splitListProjectsResponse } from './project-bytes-client';

const project = (id: number, name: string) => projectsV1.Project.fromPartial({ id, name, path: name.toLowerCase(), topics: ['a', 'b'], createdAt: new Date(Date.UTC(2026, 0, 1 + (id % 28))) });

describe('splitListProjectsResponse', () => {
  it('gives each project its own bytes, each decoding to the project sent, and the total', () => {
    const sent = [project(3, 'Three'), project(70_000, 'Seventy'), project(2 ** 40, 'Big')];
    const encoded = projectsV1.ListProjectsResponse.encode({ projects: sent, total: 1234, more: false }).finish();
    const split = splitListProjectsResponse(encoded);
    expect(split.total).toBe(1234);
    expect(split.projects.map((b) => projectsV1.Project.decode(b))).toEqual(sent);
    // Views of the answer, not copies: it is read once and dropped (the presentation cache copies what it keeps).
    expect(split.projects.every((b) => b.buffer === encoded.buffer)).toBe(true);
  });

  it('reads "not counted" (-1, a ten-byte varint) and an empty page', () => {
    expect(splitListProjectsResponse(projectsV1.ListProjectsResponse.encode({ projects: [], total: -1, more: false }).finish())).toEqual({ projects: [], total: -1, more: false });
    expect(splitListProjectsResponse(new Uint8Array(0))).toEqual({ projects: [], total: 0, more: false });
  });

  it('reads `more` (a keyset page with a row after it)', () => {
    const encoded = projectsV1.ListProjectsResponse.encode({ projects: [project(5, 'Five')], total: -1, more: true }).finish();
    expect(splitListProjectsResponse(encoded)).toMatchObject({ total: -1, more: true });
    expect(splitListProjectsResponse(Buffer.from(encoded))).toMatchObject({ total: -1, more: true });
  });

  it('skips fields it does not know (a newer projects service)', () => {
    const known = projectsV1.ListProjectsResponse.encode({ projects: [project(5, 'Five')], total: 1, more: false }).finish();
    // Field 9 (length-delimited, 3 bytes) then field 10 (varint), before and after the known fields.
    const unknown = Uint8Array.from([9 << 3 | 2, 3, 1, 2, 3, 10 << 3, 0x96, 0x01]);
    const split = splitListProjectsResponse(Buffer.concat([unknown, known, unknown]));
    expect(split.total).toBe(1);
    expect(split.projects.map((b) => projectsV1.Project.decode(b).name)).toEqual(['Five']);
  });

  it('reads long projects (lengths of two and three bytes) from a Buffer as grpc-js hands it, as views of it', () => {
    const long = (id: number, n: number) => projectsV1.Project.fromPartial({ ...project(id, 'Long'), description: 'd'.repeat(n) });
    const sent = [long(1, 200), long(2, 20_000), project(3, 'Short')];
    const encoded = Buffer.from(projectsV1.ListProjectsResponse.encode({ projects: sent, total: -1, more: false }).finish());
    const split = splitListProjectsResponse(encoded);
    expect(split.total).toBe(-1);
    expect(split.projects.map((b) => projectsV1.Project.decode(b))).toEqual(sent);
    expect(split.projects.map((b) => encodedProjectId(b))).toEqual([1, 2, 3]);
    expect(split.projects.every((b) => Buffer.isBuffer(b) && b.buffer === encoded.buffer)).toBe(true);
  });

  it('reads the total wherever it comes, and the last one when sent twice (as a decoder would)', () => {
    const page = projectsV1.ListProjectsResponse.encode({ projects: [project(5, 'Five')], total: 7, more: false }).finish();
    const totalFirst = Buffer.concat([projectsV1.ListProjectsResponse.encode({ projects: [], total: 3, more: false }).finish(), page]);
    expect(projectsV1.ListProjectsResponse.decode(totalFirst).total).toBe(7);
    expect(splitListProjectsResponse(totalFirst)).toMatchObject({ total: 7 });
    expect(splitListProjectsResponse(totalFirst).projects.map((b) => projectsV1.Project.decode(b).name)).toEqual(['Five']);
  });

  it('reads a tag written in more bytes than needed (valid protobuf) like any other', () => {
    const five = projectsV1.Project.encode(project(5, 'Five')).finish();
    // Field 1, length-delimited, as the two-byte varint 0x8a 0x00; then the length and the project.
    const padded = Buffer.concat([Uint8Array.from([0x8a, 0x00, five.length]), five]);
    expect(splitListProjectsResponse(padded).projects.map((b) => projectsV1.Project.decode(b).name)).toEqual(['Five']);
  });

  it('refuses a truncated answer instead of cutting a project short', () => {
    const encoded = projectsV1.ListProjectsResponse.encode({ projects: [project(5, 'Five')], total: 1, more: false }).finish();
    expect(() => splitListProjectsResponse(encoded.subarray(0, 10))).toThrow();
  });
});

describe('encodedProjectId', () => {
  it('reads the id of an encoded project, large ones too', () => {
    for (const id of [1, 127, 128, 300, 2 ** 31 + 7, 2 ** 40, 2 ** 49 - 1, 2 ** 49, 2 ** 52 + 3]) expect(encodedProjectId(projectsV1.Project.encode(project(id, 'P')).finish())).toBe(id);
  });

  it('finds the id after other fields too (two encodings concatenated are one message, the id last)', () => {
    const merged = Buffer.concat([projectsV1.Project.encode(projectsV1.Project.fromPartial({ name: 'x', description: 'd' })).finish(), projectsV1.Project.encode(project(77, 'P')).finish()]);
    expect(projectsV1.Project.decode(merged).id).toBe(77);
    expect(encodedProjectId(merged)).toBe(77);
  });

  it('is 0 for a project without an id (proto3 leaves the default out)', () => {
    expect(encodedProjectId(projectsV1.Project.encode(projectsV1.Project.fromPartial({ name: 'x' })).finish())).toBe(0);
  });
});

describe('splitGetProjectResponse / splitGetProjectsResponse', () => {
  it('gives the project\'s bytes of GetProject, and nothing for an empty answer', () => {
    const sent = project(42, 'Answer');
    const split = splitGetProjectResponse(projectsV1.GetProjectResponse.encode({ project: sent }).finish());
    expect(projectsV1.Project.decode(split.project!)).toEqual(sent);
    expect(splitGetProjectResponse(new Uint8Array(0))).toEqual({});
  });

  it('keeps GetProjects\' results in order: each a project\'s bytes or its decoded error, an empty result as it is', () => {
    const moved = { kind: 'moved', message: 'Project', fieldsJson: '', movedToId: 70 };
    const encoded = projectsV1.GetProjectsResponse.encode({
      results: [
        { result: { $case: 'project', value: project(1, 'One') } },
        { result: { $case: 'error', value: moved } },
        { result: undefined },
        { result: { $case: 'project', value: project(2, 'Two') } },
      ],
    }).finish();
    const { results } = splitGetProjectsResponse(encoded);
    expect(results.map((r) => r.result?.$case)).toEqual(['project', 'error', undefined, 'project']);
    const value = (i: number) => results[i]!.result!.value;
    expect(projectsV1.Project.decode(value(0) as Buffer)).toEqual(project(1, 'One'));
    expect(value(1)).toEqual(moved);
    expect(projectsV1.Project.decode(value(3) as Buffer)).toEqual(project(2, 'Two'));
  });
});
