import { contentDisposition, transliterate } from './content-disposition';

describe('contentDisposition (ActionDispatch::Http::ContentDisposition.format)', () => {
  it('writes the ASCII and the UTF-8 names as Rails does', () => {
    expect(contentDisposition('attachment', 'test.jpg')).toBe(`attachment; filename="test.jpg"; filename*=UTF-8''test.jpg`);
    expect(contentDisposition('inline', 'my file.png')).toBe(`inline; filename="my file.png"; filename*=UTF-8''my%20file.png`);
  });

  it('transliterates for the ASCII name and percent-escapes UTF-8 bytes in the other', () => {
    expect(contentDisposition('attachment', 'héllo.txt')).toBe(`attachment; filename="hello.txt"; filename*=UTF-8''h%C3%A9llo.txt`);
    expect(contentDisposition('attachment', '日本.txt')).toBe(`attachment; filename="%3F%3F.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`);
    expect(contentDisposition('attachment', 'a"b%c.txt')).toBe(`attachment; filename="a%22b%25c.txt"; filename*=UTF-8''a%22b%25c.txt`);
  });

  it('transliterates Latin letters like I18n', () => {
    expect(transliterate('Straße Ærø')).toBe('Strasse AEro');
  });
});
