import { maskedUrl } from './resolve';
import { withCredentials, withoutCredentials } from './credentials';

describe('remote URL credentials', () => {
  it('puts the credentials given into the URL, each replacing the URL’s own, escaped', () => {
    expect(withCredentials('https://example.com/a.git', { user: 'bot', password: 'p@ss:w/rd' })).toBe('https://bot:p%40ss%3Aw%2Frd@example.com/a.git');
    expect(withCredentials('https://old:secret@example.com/a.git', { password: 'new' })).toBe('https://old:new@example.com/a.git');
    expect(withCredentials('https://old:secret@example.com/a.git', {})).toBe('https://old:secret@example.com/a.git');
    expect(withCredentials('not a url', { user: 'x' })).toBe('not a url');
    expect(maskedUrl(withCredentials('http://127.0.0.1:81/u.git', { user: 'u', password: 'p' }))).toBe('http://*****:*****@127.0.0.1:81/u.git');
  });

  it('drops user and password', () => {
    expect(withoutCredentials('https://bot:pw@example.com/a.git')).toBe('https://example.com/a.git');
    expect(withoutCredentials('https://example.com/a.git')).toBe('https://example.com/a.git');
  });
});
