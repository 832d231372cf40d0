/**
 * What a repository snapshot holds: Gitaly's `CreateSnapshot` (`internal/git/localrepo/snapshot.go`), which picks files
 * by name so that even a corrupt repository can be snapshotted. In this order: `HEAD`, `packed-refs`, the `refs/`,
 * `reftable/` and `branches/` trees, the `objects/` tree limited to loose objects and pack files (`.pack`, `.idx`), and
 * `shallow`. Left out on purpose (Gitaly's list): `config` (may hold credentials), hooks, logs, `info/`, `objects/info/`
 * and every temporary file.
 */
export type SnapshotPart = { kind: 'file'; path: string } | { kind: 'tree'; path: string; only?: (relPath: string) => boolean };

/** Gitaly `objectFiles`: loose objects and pack files of SHA-1 and SHA-256 repositories (paths relative to the repository). */
const OBJECT_FILES = [
  /\/[0-9a-fA-F]{2}\/[0-9a-fA-F]{38}$/,
  /\/pack\/pack-[0-9a-fA-F]{40}\.(pack|idx)$/,
  /\/[0-9a-fA-F]{2}\/[0-9a-fA-F]{62}$/,
  /\/pack\/pack-[0-9a-fA-F]{64}\.(pack|idx)$/,
];

/** A file under `objects/` that goes into a snapshot (`objects/ab/cdef…`, `objects/pack/pack-….pack|idx`). */
export const isSnapshotObjectFile = (relPath: string): boolean => OBJECT_FILES.some((r) => r.test(relPath));

export const SNAPSHOT_PARTS: readonly SnapshotPart[] = [
  { kind: 'file', path: 'HEAD' },
  { kind: 'file', path: 'packed-refs' },
  { kind: 'tree', path: 'refs' },
  { kind: 'tree', path: 'reftable' },
  { kind: 'tree', path: 'branches' },
  { kind: 'tree', path: 'objects', only: isSnapshotObjectFile },
  { kind: 'file', path: 'shallow' },
];

