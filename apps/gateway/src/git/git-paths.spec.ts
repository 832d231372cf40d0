import { basicCredentials } from './basic-credentials';
import { dotGitLocation, isRedirectableQuery, parseGitPath } from './git-paths';

describe('git smart HTTP paths', () => {
  it('finds the project and the action, with or without .git', () => {
    expect(parseGitPath('/group/sub/app.git/info/refs')).toEqual({ projectPath: 'group/sub/app', dotGit: true, action: 'info/refs' });
    expect(parseGitPath('/alice/app.git/git-upload-pack')).toEqual({ projectPath: 'alice/app', dotGit: true, action: 'git-upload-pack' });
    expect(parseGitPath('/alice/app.git/git-receive-pack')).toEqual({ projectPath: 'alice/app', dotGit: true, action: 'git-receive-pack' });
    expect(parseGitPath('/alice/app/info/refs')).toEqual({ projectPath: 'alice/app', dotGit: false, action: 'info/refs' });
    expect(parseGitPath('/alice/my.app.git/info/refs')).toEqual({ projectPath: 'alice/my.app', dotGit: true, action: 'info/refs' });
    expect(parseGitPath('/al%69ce/app.git/info/refs')?.projectPath).toBe('alice/app');
  });

  it('is not a git request otherwise', () => {
    for (const p of [
      '/api/v4/projects/1', '/alice.git/info/refs', '/alice/app.git/info/lfs/objects', '/alice/app.git/HEAD', '/alice/app.git/info/refs/x',
      '/../x/app.git/info/refs', '/alice/../app.git/info/refs', '/alice/-app.git/info/refs', '/alice/%2e%2e/app.git/info/refs', '/api/v4.git/info/refs',
      '/alice/a%ZZ.git/info/refs', '/alice/a b.git/info/refs', '/-/x/app.git/info/refs',
    ]) {
      expect(parseGitPath(p)).toBeUndefined();
    }
  });

  it('redirects the handshake without .git as GitLab does', () => {
    for (const q of ['', 'service=git-upload-pack', 'service=git-receive-pack']) expect(isRedirectableQuery(q)).toBe(true);
    for (const q of ['service=git-upload-archive', 'service=git-upload-pack&x=1', 'x=1']) expect(isRedirectableQuery(q)).toBe(false);
    expect(dotGitLocation('g/app', 'service=git-upload-pack')).toBe('/g/app.git/info/refs?service=git-upload-pack');
    expect(dotGitLocation('g/app', '')).toBe('/g/app.git/info/refs');
  });
});

describe('HTTP Basic credentials', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

  it('reads login and password, split at the first colon', () => {
    expect(basicCredentials(basic('oauth2:glpat-abc'))).toEqual({ login: 'oauth2', password: 'glpat-abc' });
    expect(basicCredentials(basic('alice:pa:ss'))).toEqual({ login: 'alice', password: 'pa:ss' });
    expect(basicCredentials(`basic ${Buffer.from('x:y').toString('base64')}`)).toEqual({ login: 'x', password: 'y' });
    expect(basicCredentials(basic('alice:'))).toEqual({ login: 'alice', password: '' });
  });

  it('is none without the Basic scheme or a colon', () => {
    expect(basicCredentials(undefined)).toBeUndefined();
    expect(basicCredentials('Bearer glpat-abc')).toBeUndefined();
    expect(basicCredentials('Basic')).toBeUndefined();
    expect(basicCredentials(basic('nocolon'))).toBeUndefined();
  });
});
