import { LRUCache } from 'lru-cache';
import { BinaryWriter, projectsV1 } from '@glp/proto';
import { countedAtScrape, type Actor } from '@glp/service-kit';
import type { ProjectLevels } from '../app/read-project';
import type { ProjectVersionRow } from '../store/project-rows';

/** Lookups by result, taken by the counter at each scrape (countedAtScrape: no label hashing per project). */
const pending = countedAtScrape({
  name: 'glp_projects_encoded_projects_total',
  help: 'Projects of listings encoded through the encoding cache, by result: hit (kept bytes sent) or miss (encoded and kept)',
  label: 'result',
  values: ['hit', 'miss'] as const,
});

/** Where a listed Project carries the key its encoding is kept under (absent: encoded every time). */
const ENCODING_KEY: unique symbol = Symbol('encodingKey');
/** Where a listed Project stands for an encoding already kept (keptProject): the bytes the serializer writes. */
const KEPT_BYTES: unique symbol = Symbol('keptBytes');

type Keyed = projectsV1.Project & { [ENCODING_KEY]?: string; [KEPT_BYTES]?: Uint8Array };

/** The prototype of stand-ins (keptProject): their fields read as a Project's defaults (not frozen: a frozen prototype's fields cannot be set on the stand-in). */
const EMPTY_PROJECT: projectsV1.Project = projectsV1.Project.fromPartial({});

/**
 * The key under which a listed project's encoding may be kept: everything `toProtoProject(row, actor, levels)` reads.
 * The row is named by versions instead of its columns: the project's row version (`p.xmin`, new with every write of
 * the row, including the trigger-kept counts of its group links, fork source and import source: migration 0019) and
 * its namespace's (`n.xmin`); the caller's membership, the one joined value that is neither, by its level. A committed
 * row version is one content (versions written twice by one transaction share its id, but only its last is ever seen
 * outside it, and only listings, which read committed rows outside any transaction, use these keys).
 *
 * None (encoded every time) for a project whose answer reads other rows: group links (their groups' names, their
 * expiry), a fork source, an import source; or that carries statistics or custom attributes.
 */
export function encodingKey(row: ProjectVersionRow, actor: Actor, levels: Pick<ProjectLevels, 'groupAccess' | 'shareAccess'>, withExtras: boolean): string | undefined {
  if (withExtras || !row.self_contained) return undefined;
  return `${row.id}:${row.row_version}:${row.namespace_version}:${row.member_access}|${actor.kind}:${actor.id}:${actor.admin ? 1 : 0}:${actor.external ? 1 : 0}|${levels.groupAccess}:${levels.shareAccess}`;
}

/** The project, marked to be encoded through the cache under `key` (nothing when undefined). */
export function withEncodingKey(project: projectsV1.Project, key: string | undefined): projectsV1.Project {
  if (key !== undefined) (project as Keyed)[ENCODING_KEY] = key;
  return project;
}

/**
 * A stand-in for a listed project whose encoding was found kept (EncodedProjectCache.kept), holding those bytes: the
 * ListProjects serializer of projectsServiceDefinition writes them as they are. Its fields read as an empty Project's
 * but its id, so it must only be answered through that serializer (projects-service.ts `servedProjectsService` pairs
 * the handlers that make stand-ins with it).
 */
export function keptProject(id: number, bytes: Uint8Array): projectsV1.Project {
  const standIn = Object.create(EMPTY_PROJECT) as Keyed;
  standIn.id = id;
  standIn[KEPT_BYTES] = bytes;
  return standIn;
}

/**
 * Projects' protobuf encodings kept by what they were made of (encodingKey), for ListProjects answers: the same
 * projects come back page after page and encoding one was ~11 µs, ~0.2 ms of projects' ~1.2 ms CPU per page of 20
 * (bench/README.md). An entry is right for as long as it is kept: a changed project, namespace or caller access is
 * another key. Bounded by `maxBytes` (keys and encodings; least recently used go first); 0 keeps nothing.
 */
export class EncodedProjectCache {
  private readonly lru: LRUCache<string, Uint8Array> | undefined;

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0
      ? new LRUCache<string, Uint8Array>({ maxSize: maxBytes, sizeCalculation: (bytes, key) => bytes.byteLength + key.length })
      : undefined;
  }

  /** False when configured to keep nothing. */
  get enabled(): boolean {
    return this.lru !== undefined;
  }

  /** The encoding kept under `key`, if any (a listing then need not read the project's row: keptProject). */
  kept(key: string): Uint8Array | undefined {
    const bytes = this.lru?.get(key);
    if (bytes !== undefined) pending.hit++;
    return bytes;
  }

  /** The project's encoding: a stand-in's bytes, the one kept under its key, or encoded now (and kept when it has a key). */
  encode(project: projectsV1.Project): Uint8Array {
    const pinned = (project as Keyed)[KEPT_BYTES];
    if (pinned !== undefined) return pinned;
    const key = (project as Keyed)[ENCODING_KEY];
    if (!this.lru || key === undefined) return projectsV1.Project.encode(project).finish();
    let bytes = this.lru.get(key);
    if (bytes === undefined) {
      pending.miss++;
      bytes = projectsV1.Project.encode(project).finish();
      this.lru.set(key, bytes);
    } else pending.hit++;
    return bytes;
  }

  /** Entries and bytes kept (tests). */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.lru?.size ?? 0, bytes: this.lru?.calculatedSize ?? 0 };
  }
}

/**
 * ListProjectsResponse on the wire as the generated encoder writes it (each project as field 1, then total as field 2
 * unless 0, then `more` as field 3 when true), each project's bytes from the cache, written into one buffer of the answer's size. Through a
 * `BinaryWriter` the answer grew by doubling and was copied again by `finish()` and `Buffer.from` (`ensureCapacity`
 * alone was 1.8% of projects' profile under the offset listing): a 12 KB answer of 20 took 24.6–25.7 µs in-process,
 * 5.3–7.2 µs now (bench/README.md, "The listing's answer written once").
 */
export function encodeListProjectsResponse(res: projectsV1.ListProjectsResponse, cache: EncodedProjectCache): Buffer {
  const projects = res.projects.map((project) => cache.encode(project));
  const total = res.total !== 0 ? new BinaryWriter().uint32(16).int64(res.total).finish() : undefined;
  let size = (total?.byteLength ?? 0) + (res.more ? 2 : 0);
  for (const bytes of projects) size += 1 + varintSize(bytes.byteLength) + bytes.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const bytes of projects) {
    out[at++] = 10; // field 1, length-delimited
    at = putVarint(out, at, bytes.byteLength);
    out.set(bytes, at);
    at += bytes.byteLength;
  }
  if (total) {
    out.set(total, at);
    at += total.byteLength;
  }
  if (res.more) {
    out[at++] = 0x18; // field 3, varint
    out[at++] = 1;
  }
  return out;
}

/** Bytes of a length's varint (lengths are below 2^32). */
function varintSize(n: number): number {
  let size = 1;
  for (; n >= 0x80; n >>>= 7) size++;
  return size;
}

/** Writes a length's varint at `at`; answers where it ends. */
function putVarint(out: Buffer, at: number, n: number): number {
  for (; n >= 0x80; n >>>= 7) out[at++] = (n & 0x7f) | 0x80;
  out[at++] = n;
  return at;
}

/** ProjectsService's definition with ListProjects answers encoded through `cache` (the other methods as generated). */
export function projectsServiceDefinition(cache: EncodedProjectCache): typeof projectsV1.ProjectsServiceService {
  const generated = projectsV1.ProjectsServiceService;
  return {
    ...generated,
    listProjects: { ...generated.listProjects, responseSerialize: (res: projectsV1.ListProjectsResponse) => encodeListProjectsResponse(res, cache) },
  };
}
