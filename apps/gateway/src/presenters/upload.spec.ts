import { banzaiUploadPath, markdownLink, markdownName, markdownUploadAdminEntity, projectAvatarUrl, projectUploadEntity } from './upload';

const SECRET = '66dbcd21ec5d24ed6ea225176098d52b';

describe('ProjectUpload (FileUploader, FileMarkdownLinkBuilder)', () => {
  it('answers an image as GitLab documents it', () => {
    expect(projectUploadEntity({ id: 9, projectId: 1234, secret: SECRET, fileName: 'dk.png', size: 10, contentType: 'image/png', createdAt: new Date(0) })).toEqual({
      id: 9,
      alt: 'dk',
      url: `/uploads/${SECRET}/dk.png`,
      full_path: `/-/project/1234/uploads/${SECRET}/dk.png`,
      markdown: `![dk](/uploads/${SECRET}/dk.png)`,
    });
  });

  it('links other files without `!` and keeps their extension', () => {
    expect(markdownName('notes.txt')).toBe('notes.txt');
    expect(markdownLink('notes.txt', '/u')).toBe('[notes.txt](/u)');
    expect(markdownLink('clip.mp4', '/u')).toBe('![clip](/u)');
    expect(markdownLink('song.wav', '/u')).toBe('![song](/u)');
    expect(markdownLink('logo.svg', '/u')).toBe('![logo.svg](/u)');
    expect(markdownLink('d]k.png', '/u')).toBe('![d\\]k](/u)');
  });

  it('escapes the full path as a route helper does', () => {
    expect(banzaiUploadPath(1, SECRET, 'héllo+x.png')).toBe(`/-/project/1/uploads/${SECRET}/h%C3%A9llo+x.png`);
  });
});

describe('MarkdownUploadAdmin', () => {
  it('shows the uploader as UserSafe, or null', () => {
    const createdAt = new Date('2024-05-01T10:00:00.123Z');
    expect(markdownUploadAdminEntity({ id: 1, projectId: 2, secret: SECRET, fileName: 'a.txt', size: 3, contentType: 'text/plain', createdAt, uploadedBy: { id: 5, username: 'bob', name: 'Bob' } }))
      .toEqual({ id: 1, size: 3, filename: 'a.txt', created_at: '2024-05-01T10:00:00.123Z', uploaded_by: { id: 5, username: 'bob', name: 'Bob' } });
    expect(markdownUploadAdminEntity({ id: 1, projectId: 2, secret: SECRET, fileName: 'a.txt', size: 3, contentType: '', createdAt }).uploaded_by).toBeNull();
  });
});

describe('projectAvatarUrl', () => {
  it('is the avatar uploader URL of the stored file, or null', () => {
    const web = (p: string) => `http://gitlab.example.com/${p}`;
    expect(projectAvatarUrl(3, `${SECRET}/dk.png`, web)).toBe('http://gitlab.example.com/uploads/-/system/project/avatar/3/dk.png');
    expect(projectAvatarUrl(3, '', web)).toBeNull();
    expect(projectAvatarUrl(3, undefined, web)).toBeNull();
  });
});
