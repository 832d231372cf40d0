import { parseBranches, readmeContent, retryDelayMs } from './job-rules';

describe('job rules', () => {
  it('backs off exponentially up to five minutes', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([2000, 4000, 8000, 16000]);
    expect(retryDelayMs(20)).toBe(300_000);
  });

  it('reads the branches to fork', () => {
    expect(parseBranches('')).toEqual([]);
    expect(parseBranches('main, dev ,,')).toEqual(['main', 'dev']);
  });

  it('writes the README of a new repository', () => {
    expect(readmeContent('App', '')).toBe('# App\n');
    expect(readmeContent('App', 'Does things')).toBe('# App\n\nDoes things\n');
  });
});
