import { DomainError } from '@glp/service-kit';
import { canManageToken, generateTokenSecret, resolveNewToken, rotatedExpiry, tokenDigest, tokenRefusal, tokenState } from './tokens';

describe('personal access tokens', () => {
  const now = new Date('2026-11-23T10:00:00Z');

  it('generates glpat- secrets and stores only their SHA-256', () => {
    const secret = generateTokenSecret();
    expect(secret).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    expect(tokenDigest(secret)).toHaveLength(32);
    expect(tokenDigest(secret).equals(tokenDigest(secret))).toBe(true);
    expect(generateTokenSecret()).not.toBe(secret);
  });

  it('is usable through its expiry date, expired from the day after', () => {
    expect(tokenState({ revoked: false, expiresAt: '2026-11-24', userState: 'active' }, '2026-11-23')).toBe('active');
    expect(tokenState({ revoked: false, expiresAt: '2026-11-23', userState: 'active' }, '2026-11-23')).toBe('expired');
    expect(tokenState({ revoked: false, expiresAt: null, userState: 'active' }, '2099-01-01')).toBe('active');
  });

  it('reports revoked before expired, and a blocked owner', () => {
    expect(tokenState({ revoked: true, expiresAt: '2000-01-01', userState: 'active' }, '2026-11-23')).toBe('revoked');
    expect(tokenState({ revoked: false, expiresAt: null, userState: 'blocked' })).toBe('user_blocked');
  });

  it('defaults the expiry to the maximum lifetime (365 days)', () => {
    expect(resolveNewToken({ name: 't', scopes: ['api'], expiresAt: '' }, now)).toEqual({ expiresAt: '2027-11-23' });
  });

  it('rejects unknown scopes, no scopes, past and too-distant expiry', () => {
    const fields = (input: Parameters<typeof resolveNewToken>[0]) => {
      try {
        resolveNewToken(input, now);
      } catch (err) {
        return (err as DomainError).fields;
      }
      throw new Error('expected a validation error');
    };
    expect(fields({ name: 't', scopes: ['api', 'root_everything'], expiresAt: '' })).toEqual({ scopes: ['root_everything is not a valid scope'] });
    expect(fields({ name: '', scopes: [], expiresAt: '' })).toEqual({ name: ["can't be blank"], scopes: ["can't be blank"] });
    expect(fields({ name: 't', scopes: ['api'], expiresAt: '2026-11-23' })).toEqual({ expires_at: ['must be in the future'] });
    expect(fields({ name: 't', scopes: ['api'], expiresAt: '2030-01-01' })).toEqual({ expires_at: ['must be before 2027-11-23'] });
    expect(fields({ name: 't', scopes: ['api'], expiresAt: '2027-02-30' })).toEqual({ expires_at: ['is invalid'] });
  });
});

describe('token rotation and management rules', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  it('rotates to a week from today unless a valid date is asked for', () => {
    expect(rotatedExpiry('', now)).toBe('2026-03-17');
    expect(rotatedExpiry('2026-04-01', now)).toBe('2026-04-01');
    expect(() => rotatedExpiry('2026-03-01', now)).toThrow();
  });
  it('lets owners and administrators manage a token', () => {
    expect(canManageToken({ kind: 'user', id: 3, admin: false }, 3)).toBe(true);
    expect(canManageToken({ kind: 'user', id: 4, admin: false }, 3)).toBe(false);
    expect(canManageToken({ kind: 'user', id: 4, admin: true }, 3)).toBe(true);
  });

  it('refuses another user\'s (or a missing) token as GitLab: 404 to administrators only, 401 to everyone else', () => {
    expect(tokenRefusal({ admin: true })).toMatchObject({ kind: 'not_found' });
    expect(tokenRefusal({ admin: false })).toMatchObject({ kind: 'unauthenticated' });
    expect(tokenRefusal({ admin: false })).toBeInstanceOf(DomainError);
  });
});
