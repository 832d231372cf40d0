import { ANONYMOUS, DomainError, invalid, type Actor } from '@glp/service-kit';
import { AVATAR_MAX_BYTES, avatarErrors, isAvatarRef, maySetAvatar, withAvatarErrors } from './avatar-rules';

const user = (over: Partial<Actor> = {}): Actor => ({ kind: 'user', id: 7, username: 'alice', admin: false, scopes: ['api'], ...over });
const SECRET = 'ab'.repeat(16);
const TYPES = 'file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon';
const EXTENSIONS = 'file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp';

describe('avatarErrors (Avatarable, AvatarUploader)', () => {
  it('accepts an image of an allowed type and extension up to 200 KiB', () => {
    expect(avatarErrors({ fileName: 'dk.png', size: AVATAR_MAX_BYTES, contentType: 'image/png' })).toEqual([]);
    expect(avatarErrors({ fileName: 'Logo.JPEG', size: 10, contentType: 'image/jpeg' })).toEqual([]);
  });

  it('refuses a content type outside the allowlist first (and nothing else is checked then)', () => {
    expect(avatarErrors({ fileName: 'notes.txt', size: 10 ** 7, contentType: 'text/plain' })).toEqual([TYPES]);
    expect(avatarErrors({ fileName: 'x.webp', size: 10, contentType: 'image/webp' })).toEqual([TYPES]);
    expect(avatarErrors({ fileName: 'x.svg', size: 10, contentType: 'image/svg+xml' })).toEqual([TYPES]);
  });

  it('refuses an extension that is not an image, and a file over 200 KiB, together', () => {
    expect(avatarErrors({ fileName: 'x.html', size: AVATAR_MAX_BYTES + 1, contentType: 'image/png' }))
      .toEqual([EXTENSIONS, 'is too big (should be at most 200 KB)']);
    expect(avatarErrors({ fileName: '.png', size: 1, contentType: 'image/png' })).toEqual([EXTENSIONS]);
  });
});

describe('withAvatarErrors', () => {
  it('adds the avatar to the model errors of the same save', () => {
    const run = () => withAvatarErrors(['bad'], () => {
      throw invalid({ name: ["can't be blank"] });
    });
    expect(run).toThrow(DomainError);
    try {
      run();
    } catch (err) {
      expect((err as DomainError).fields).toEqual({ name: ["can't be blank"], avatar: ['bad'] });
    }
  });

  it('passes the validation through when the avatar is fine', () => {
    expect(withAvatarErrors([], () => 42)).toBe(42);
  });
});

describe('the stored avatar and who sets it', () => {
  it('knows a stored avatar reference', () => {
    expect(isAvatarRef('')).toBe(true);
    expect(isAvatarRef(`${SECRET}/dk.png`)).toBe(true);
    expect(isAvatarRef(`${SECRET}/../dk.png`)).toBe(false);
    expect(isAvatarRef(`${SECRET}/notes.txt`)).toBe(false);
    expect(isAvatarRef('dk.png')).toBe(false);
  });

  it('lets Maintainers, administrators and the creator set it', () => {
    expect(maySetAvatar(user(), 40, 1)).toBe(true);
    expect(maySetAvatar(user(), 30, 1)).toBe(false);
    expect(maySetAvatar(user(), 30, 7)).toBe(true);
    expect(maySetAvatar(user({ admin: true }), 0, 1)).toBe(true);
    expect(maySetAvatar(ANONYMOUS, 50, 0)).toBe(false);
  });
});
