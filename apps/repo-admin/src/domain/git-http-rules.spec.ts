import { bodyEncoding, gitProtocolFrom, gitRequestUrl, isProtocolV2, parseGitRequest, signedGitMethod } from './git-http-rules';

describe('git http rules', () => {
  it('parses exactly the URLs the gateway writes', () => {
    expect(parseGitRequest('GET', gitRequestUrl(42, 'git-upload-pack', true))).toEqual({ projectId: 42, service: 'git-upload-pack', advertise: true });
    expect(parseGitRequest('GET', gitRequestUrl(7, 'git-receive-pack', true))).toEqual({ projectId: 7, service: 'git-receive-pack', advertise: true });
    expect(parseGitRequest('POST', gitRequestUrl(42, 'git-upload-pack', false))).toEqual({ projectId: 42, service: 'git-upload-pack', advertise: false });
    expect(parseGitRequest('POST', '/projects/42.git/git-receive-pack')).toEqual({ projectId: 42, service: 'git-receive-pack', advertise: false });
  });

  it('refuses any other method, service, id or extra', () => {
    for (const [method, url] of [
      ['POST', '/projects/42.git/info/refs?service=git-upload-pack'],
      ['GET', '/projects/42.git/git-upload-pack'],
      ['GET', '/projects/42.git/info/refs'],
      ['GET', '/projects/42.git/info/refs?service=git-upload-archive'],
      ['GET', '/projects/42.git/info/refs?service=git-upload-pack&x=1'],
      ['GET', '/projects/0.git/info/refs?service=git-upload-pack'],
      ['GET', '/projects/-1.git/info/refs?service=git-upload-pack'],
      ['GET', '/projects/../1.git/info/refs?service=git-upload-pack'],
      ['POST', '/projects/42/git-receive-pack'],
      ['POST', '/projects/99999999999999999.git/git-receive-pack'],
    ]) {
      expect(parseGitRequest(method!, url!)).toBeUndefined();
    }
  });

  it('signs the method and the URL together', () => {
    expect(signedGitMethod('get', '/projects/1.git/info/refs?service=git-upload-pack', 'g-1')).toBe('git-http GET /projects/1.git/info/refs?service=git-upload-pack g-1');
    expect(signedGitMethod('POST', '/projects/1.git/git-receive-pack', 'g-1')).not.toBe(signedGitMethod('POST', '/projects/1.git/git-upload-pack', 'g-1'));
    expect(signedGitMethod('POST', '/projects/1.git/git-upload-pack', 'g-1')).not.toBe(signedGitMethod('POST', '/projects/1.git/git-upload-pack', 'g-2'));
  });

  it('passes on a sane Git-Protocol header only, and knows protocol v2', () => {
    expect(gitProtocolFrom('version=2')).toBe('version=2');
    expect(gitProtocolFrom('version=2:object-format=sha1')).toBe('version=2:object-format=sha1');
    expect(gitProtocolFrom('version=2; rm -rf /')).toBeUndefined();
    expect(gitProtocolFrom('x'.repeat(300))).toBeUndefined();
    expect(gitProtocolFrom(undefined)).toBeUndefined();
    expect(isProtocolV2('git-upload-pack', 'version=2')).toBe(true);
    expect(isProtocolV2('git-upload-pack', 'version=1')).toBe(false);
    expect(isProtocolV2('git-receive-pack', 'version=2')).toBe(false);
    expect(isProtocolV2('git-upload-pack', undefined)).toBe(false);
  });

  it('knows the body encodings git sends', () => {
    expect(bodyEncoding(undefined)).toBe('identity');
    expect(bodyEncoding('gzip')).toBe('gzip');
    expect(bodyEncoding('X-GZIP')).toBe('gzip');
    expect(bodyEncoding('br')).toBeUndefined();
  });
});
