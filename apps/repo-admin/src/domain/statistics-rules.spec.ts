import { measuredAfter } from './statistics-rules';

describe('statistics rules', () => {
  it('measures after every job that leaves a repository on disk', () => {
    expect(measuredAfter('create')).toBe(false); // recorded by the create itself
    expect(measuredAfter('fork')).toBe(true);
    expect(measuredAfter('import')).toBe(true);
    expect(measuredAfter('housekeeping')).toBe(true);
    expect(measuredAfter('remove')).toBe(false);
  });
});
