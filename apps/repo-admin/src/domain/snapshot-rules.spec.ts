import { isSnapshotObjectFile, SNAPSHOT_PARTS } from './snapshot-rules';

describe('snapshot rules (Gitaly CreateSnapshot)', () => {
  it('takes loose objects and pack files only from objects/', () => {
    expect(isSnapshotObjectFile('objects/ab/cdef0123456789abcdef0123456789abcdef01')).toBe(true);
    expect(isSnapshotObjectFile(`objects/pack/pack-${'a'.repeat(40)}.pack`)).toBe(true);
    expect(isSnapshotObjectFile(`objects/pack/pack-${'a'.repeat(40)}.idx`)).toBe(true);
    expect(isSnapshotObjectFile(`objects/pack/pack-${'b'.repeat(64)}.idx`)).toBe(true);
    expect(isSnapshotObjectFile(`objects/pack/pack-${'a'.repeat(40)}.rev`)).toBe(false);
    expect(isSnapshotObjectFile('objects/info/packs')).toBe(false);
    expect(isSnapshotObjectFile('objects/info/alternates')).toBe(false);
    expect(isSnapshotObjectFile('objects/pack/tmp_pack_xyz')).toBe(false);
    expect(isSnapshotObjectFile('objects/ab/tmp_obj_123')).toBe(false);
  });

  it('never includes config or hooks', () => {
    const paths = SNAPSHOT_PARTS.map((p) => p.path);
    expect(paths).toEqual(['HEAD', 'packed-refs', 'refs', 'reftable', 'branches', 'objects', 'shallow']);
    expect(paths).not.toContain('config');
    expect(paths).not.toContain('hooks');
  });
});
