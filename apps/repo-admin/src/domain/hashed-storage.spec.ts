import { hashedDiskPath, hashedWikiPath, isValidBranchName } from './hashed-storage';

describe('hashed storage', () => {
  it('is GitLab’s layout for a project id', () => {
    // sha256("1") = 6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b
    expect(hashedDiskPath(1)).toBe('@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git');
    expect(hashedWikiPath(1)).toBe('@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.wiki.git');
  });

  it('accepts branch names git accepts and refuses the others', () => {
    for (const ok of ['main', 'feature/x', 'release-1.0', 'user@topic']) expect(isValidBranchName(ok)).toBe(true);
    for (const bad of ['', '-x', 'a..b', 'a b', 'x.lock', 'a:b', 'a~1', 'a^', 'a?', 'a*', 'a[', 'a\\b', '/a', 'a/', 'a//b', '@', 'a@{1}', 'a.']) {
      expect(isValidBranchName(bad)).toBe(false);
    }
  });
});
