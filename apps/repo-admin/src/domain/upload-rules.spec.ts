import { ANONYMOUS, type Actor } from '@glp/service-kit';
import {
  attachmentLimitBytes, fileNameErrors, isStoredFileName, isUploadSecret, mayAdminUploads, mayManageAvatar, mayUpload, pageWindow, parseAvatarRef,
  projectAvatarsDir, projectUploadsDir, sanitizeFileName, uploadDir, uploadPath,
} from './upload-rules';
import { hashedDiskPath } from './hashed-storage';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'], ...over });
const SECRET = '0123456789abcdef0123456789abcdef';

describe('sanitizeFileName (CarrierWave::SanitizedFile / UploadedFile#sanitize_filename)', () => {
  it.each([
    ['dk.png', 'dk.png'],
    ['my file (1).txt', 'my_file__1_.txt'],
    ['a+b-c_d.tar.gz', 'a+b-c_d.tar.gz'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['C:\\Users\\me\\photo.jpg', 'photo.jpg'],
    ['dir/', 'dir'],
    ['/', '_'],
    ['', 'unnamed'],
    ['..', '_..'],
    ['.', '_.'],
    ['...', '_...'],
    ['.hidden', '.hidden'],
    ['héllo wörld.png', 'héllo_wörld.png'],
    ['日本語.txt', '日本語.txt'],
    ['a\u0000b', 'a_b'],
    ['semi;colon&amp.md', 'semi_colon_amp.md'],
  ])('%j → %j', (given, expected) => {
    expect(sanitizeFileName(given)).toBe(expected);
  });

  it('never yields a name that leaves its directory', () => {
    for (const evil of ['../x', '..', '.', '/etc/passwd', 'a/../../b', '..%2f..%2fx', '\\..\\x']) {
      const name = sanitizeFileName(evil);
      expect(isStoredFileName(name)).toBe(true);
      expect(name).not.toMatch(/[/\\]/);
    }
  });

  it('refuses a name no file system holds (more than 255 bytes)', () => {
    expect(fileNameErrors('a'.repeat(255))).toBeUndefined();
    expect(fileNameErrors('a'.repeat(256))).toEqual({ file: ['is too long (maximum is 255 characters)'] });
    expect(fileNameErrors('é'.repeat(128))).toBeDefined(); // 256 bytes of UTF-8
  });
});

describe('places on disk', () => {
  it('keeps attachments in the project hashed directory and avatars under -/system, below @uploads', () => {
    const hashed = hashedDiskPath(5).replace(/\.git$/, '');
    expect(projectUploadsDir(5)).toBe(`@uploads/${hashed}`);
    expect(uploadPath('FileUploader', 5, SECRET, 'dk.png')).toBe(`@uploads/${hashed}/${SECRET}/dk.png`);
    expect(projectAvatarsDir(5)).toBe('@uploads/-/system/project/avatar/5');
    expect(uploadPath('AvatarUploader', 5, SECRET, 'dk.png')).toBe(`@uploads/-/system/project/avatar/5/${SECRET}/dk.png`);
  });

  it('refuses anything that is not a secret, a project id or a stored name', () => {
    expect(() => uploadDir('FileUploader', 5, '../../x')).toThrow();
    expect(() => uploadDir('FileUploader', 0, SECRET)).toThrow();
    expect(() => uploadPath('FileUploader', 5, SECRET, '..')).toThrow();
    expect(() => uploadPath('FileUploader', 5, SECRET, 'a/b')).toThrow();
    expect(isUploadSecret(SECRET)).toBe(true);
    expect(isUploadSecret(SECRET.toUpperCase())).toBe(false);
    expect(isUploadSecret('abc')).toBe(false);
  });

  it('reads an avatar reference', () => {
    expect(parseAvatarRef(`${SECRET}/dk.png`)).toEqual({ secret: SECRET, fileName: 'dk.png' });
    expect(parseAvatarRef('')).toBeUndefined();
    expect(parseAvatarRef(`${SECRET}/..`)).toBeUndefined();
    expect(parseAvatarRef('nothex/dk.png')).toBeUndefined();
  });
});

describe('who may do what', () => {
  it('lets any signed-in caller upload (reading the project is checked by projects)', () => {
    expect(mayUpload(user())).toBe(true);
    expect(mayUpload(ANONYMOUS)).toBe(false);
  });

  it('keeps listing, reading by id and deleting to Maintainers and administrators (admin_upload, destroy_upload)', () => {
    expect(mayAdminUploads(user(), 40)).toBe(true);
    expect(mayAdminUploads(user(), 30)).toBe(false);
    expect(mayAdminUploads(user({ admin: true }), 0)).toBe(true);
    expect(mayAdminUploads(ANONYMOUS, 50)).toBe(false);
  });

  it('lets Maintainers and the creator store or prune avatars', () => {
    expect(mayManageAvatar(user(), 40, 1)).toBe(true);
    expect(mayManageAvatar(user(), 30, 7)).toBe(true);
    expect(mayManageAvatar(user(), 30, 1)).toBe(false);
    expect(mayManageAvatar(ANONYMOUS, 0, 0)).toBe(false);
  });
});

describe('limits and pages', () => {
  it('counts max_attachment_size in MiB', () => {
    expect(attachmentLimitBytes(100)).toBe(104_857_600);
  });

  it('turns page/per_page into a window', () => {
    expect(pageWindow(1, 20)).toEqual({ limit: 20, offset: 0 });
    expect(pageWindow(3, 2)).toEqual({ limit: 2, offset: 4 });
    expect(pageWindow(0, 0)).toEqual({ limit: 20, offset: 0 });
    expect(pageWindow(1, 1000)).toEqual({ limit: 100, offset: 0 });
  });
});
