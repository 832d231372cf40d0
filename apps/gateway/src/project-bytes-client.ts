import { makeGenericClientConstructor, type Client } from '@grpc/grpc-js';
import { BinaryReader, projectsV1, WireType } from '@glp/proto';
import type { UnaryFn } from '@glp/service-kit';
import type { ProjectsResult } from './project-read-batcher';

/**
 * The projects service's reads whose answers the gateway presents (GET /projects and the other listings, GET
 * /projects/:id), with each project left encoded: its protobuf bytes, a view of the answer (not copied: the answer is
 * read once and dropped; the presentation cache copies the bytes it keeps), which the routes present through the
 * presentation cache (presented-json-cache.ts) and decode only on a miss. Same rpc paths, same requests as the
 * generated client; only the answers are read differently.
 */

/** ListProjectsResponse with its projects' bytes. */
export interface ProjectListingBytes {
  projects: Buffer[];
  /** As ListProjectsResponse.total: -1 when not counted or over the counting cap. */
  total: number;
  /** As ListProjectsResponse.more: without a count, a project follows this page. */
  more: boolean;
}

/** GetProjectResponse with the project's bytes. */
export interface ProjectBytes {
  project?: Buffer;
}

/** GetProjectsResponse with each found project's bytes (errors decoded): the batcher's results, their projects encoded. */
export interface ProjectsBytes {
  results: ProjectsResult<Buffer>[];
}

/** Calls `onField` for each field of an encoded message, with the reader positioned at its value; what it leaves unread is skipped. */
function eachField(buf: Uint8Array, onField: (reader: BinaryReader, field: number, wireType: WireType) => boolean): void {
  const reader = new BinaryReader(buf);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (!onField(reader, field, wireType)) reader.skip(wireType, field);
  }
}

const isMessage = (wireType: WireType) => wireType === WireType.LengthDelimited;

/** A length-delimited field's bytes as a Buffer over the same memory (no copy). */
function view(reader: BinaryReader): Buffer {
  const bytes = reader.bytes();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Splits an encoded ListProjectsResponse into its projects' bytes (field 1), its total (field 2) and `more` (field 3); other fields are skipped. */
export function splitListProjectsResponse(buf: Uint8Array): ProjectListingBytes {
  return splitListingAsWritten(buf) ?? splitListingAnyForm(buf);
}

/** splitListProjectsResponse for any encoding: field by field through BinaryReader. */
function splitListingAnyForm(buf: Uint8Array): ProjectListingBytes {
  const out: ProjectListingBytes = { projects: [], total: 0, more: false };
  eachField(buf, (reader, field, wireType) => {
    if (field === 1 && isMessage(wireType)) out.projects.push(view(reader));
    else if (field === 2 && wireType === WireType.Varint) out.total = Number(reader.int64());
    else if (field === 3 && wireType === WireType.Varint) out.more = reader.bool();
    else return false;
    return true;
  });
  return out;
}

/** Where the last readVarint ended (a module variable, not a returned pair: no allocation per call). */
let varintEnd = 0;

/** The varint at `pos` when it is at most 7 bytes (under 2^49: exact as a number), its end in `varintEnd`; else -1. */
function readVarint(buf: Uint8Array, pos: number): number {
  let value = 0;
  for (let i = 0, scale = 1; i < 7 && pos < buf.length; i++, scale *= 128) {
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = pos;
      return value;
    }
  }
  return -1;
}

/**
 * splitListProjectsResponse for the answer as projects' encoder writes it (encoded-projects.ts): only field 1 (tag byte
 * 0x0a), field 2 (0x10) and field 3 (0x18, `more` as the one byte 1), in one-byte tags; undefined on anything else (splitListingAnyForm then reads it). Each
 * project is a subarray of the answer, read without a reader, a tag pair and a Uint8Array per project: splitting a
 * page of 20 and reading its ids allocated ~9 KB; with the presentation cache's lookups that was ~29 µs of CPU a
 * listing in-process, ~5 µs now (bench/README.md).
 */
function splitListingAsWritten(buf: Uint8Array): ProjectListingBytes | undefined {
  const whole = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: ProjectListingBytes = { projects: [], total: 0, more: false };
  let pos = 0;
  while (pos < whole.length) {
    const tag = whole[pos]!;
    if (tag === 0x0a) {
      const length = readVarint(whole, pos + 1);
      if (length < 0 || varintEnd + length > whole.length) return undefined;
      out.projects.push(whole.subarray(varintEnd, varintEnd + length));
      pos = varintEnd + length;
    } else if (tag === 0x10) {
      // An int64, 10 bytes when negative (-1: not counted): BinaryReader reads it, once per answer.
      const reader = new BinaryReader(whole.subarray(pos + 1));
      out.total = Number(reader.int64());
      pos += 1 + reader.pos;
    } else if (tag === 0x18 && whole[pos + 1] === 1) {
      out.more = true;
      pos += 2;
    } else return undefined;
  }
  return out;
}

/** An encoded GetProjectResponse: its project's bytes (field 1). */
export function splitGetProjectResponse(buf: Uint8Array): ProjectBytes {
  const out: ProjectBytes = {};
  eachField(buf, (reader, field, wireType) => {
    if (field !== 1 || !isMessage(wireType)) return false;
    out.project = view(reader);
    return true;
  });
  return out;
}

/** An encoded GetProjectsResponse: each result (field 1) a project's bytes (its field 1) or a decoded ItemError (its field 2). */
export function splitGetProjectsResponse(buf: Uint8Array): ProjectsBytes {
  const out: ProjectsBytes = { results: [] };
  eachField(buf, (reader, field, wireType) => {
    if (field !== 1 || !isMessage(wireType)) return false;
    const entry: ProjectsResult<Buffer> = {};
    // A oneof: the last of its fields on the wire wins.
    eachField(reader.bytes(), (item, itemField, itemWireType) => {
      if (!isMessage(itemWireType)) return false;
      if (itemField === 1) entry.result = { $case: 'project', value: view(item) };
      else if (itemField === 2) entry.result = { $case: 'error', value: projectsV1.ItemError.decode(item.bytes()) };
      else return false;
      return true;
    });
    out.results.push(entry);
    return true;
  });
  return out;
}

/**
 * A project's id (field 1) read from its bytes without decoding the rest; 0 when absent (proto3's default). Read up to
 * the id only: the encoder writes fields in number order, so it is the first, and the ~40 fields after it were each
 * skipped before (5% of the gateway's CPU for a listing of 20). The id is the presentation cache's lookup key; an entry
 * answers only the very bytes it was made from, so even bytes carrying the field twice are answered exactly.
 */
export function encodedProjectId(bytes: Uint8Array): number {
  // As the encoder writes it: tag byte 0x08 (field 1, varint) first, the id under 2^49.
  if (bytes[0] === 0x08) {
    const id = readVarint(bytes, 1);
    if (id >= 0) return id;
  }
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.Varint) return Number(reader.int64());
    reader.skip(wireType, field);
  }
  return 0;
}

/** ListProjects, GetProject and GetProjects of the projects service, their answers' projects left encoded. */
export interface ProjectBytesClient extends Client {
  listProjects: UnaryFn<projectsV1.ListProjectsRequest, ProjectListingBytes>;
  getProject: UnaryFn<projectsV1.GetProjectRequest, ProjectBytes>;
  getProjects: UnaryFn<projectsV1.GetProjectsRequest, ProjectsBytes>;
}

const generated = projectsV1.ProjectsServiceService;

export const ProjectBytesClient = makeGenericClientConstructor(
  {
    listProjects: { ...generated.listProjects, responseDeserialize: (value: Buffer) => splitListProjectsResponse(value) },
    getProject: { ...generated.getProject, responseDeserialize: (value: Buffer) => splitGetProjectResponse(value) },
    getProjects: { ...generated.getProjects, responseDeserialize: (value: Buffer) => splitGetProjectsResponse(value) },
  },
  'gitlab.projects.v1.ProjectsService',
) as unknown as (new (...args: ConstructorParameters<typeof projectsV1.ProjectsServiceClient>) => ProjectBytesClient) & {
  service: Record<string, { path: string }>;
};
