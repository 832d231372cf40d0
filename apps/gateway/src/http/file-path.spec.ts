import { cgiUnescape, isUnsafeFilePath } from './file-path';

describe('isUnsafeFilePath (Gitlab::PathTraversal.check_path_traversal!)', () => {
  it.each(['..', '.', '../x', '..\\x', 'a/..', 'a/../b', 'a\\..\\b', '%2e%2e', '%2E%2E%2Fetc', 'a\nb', '/etc/passwd', '%252e%252e'])('refuses %j', (path) => {
    expect(isUnsafeFilePath(path)).toBe(true);
  });

  it.each(['dk.png', 'a+b.png', '..png', 'a..b', '.hidden', 'héllo.txt'])('accepts %j', (path) => {
    expect(isUnsafeFilePath(path)).toBe(false);
  });

  it('unescapes like CGI.unescape', () => {
    expect(cgiUnescape('a+b%20c%zz')).toBe('a b c%zz');
  });
});
