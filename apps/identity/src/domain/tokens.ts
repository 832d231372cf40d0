import { createHash, randomBytes } from 'node:crypto';
import { invalid, notFound, unauthenticated, type DomainError } from '@glp/service-kit';

/** Personal access token scopes GitLab accepts (Gitlab::Auth). */
export const TOKEN_SCOPES = [
  'api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy', 'self_rotate', 'read_repository',
  'write_repository', 'read_registry', 'write_registry', 'read_virtual_registry', 'write_virtual_registry',
  'read_service_ping', 'sudo', 'admin_mode', 'ai_features',
] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const TOKEN_PREFIX = 'glpat-';
/** GitLab's default maximum lifetime of a personal access token, in days. */
export const MAX_TOKEN_LIFETIME_DAYS = 365;

export function isTokenScope(s: string): s is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(s);
}

/** A new secret: `glpat-` and 20 URL-safe characters (GitLab's format). */
export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(15).toString('base64url');
}

/** Tokens are stored as SHA-256 digests only. */
export function tokenDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export type TokenState = 'active' | 'expired' | 'revoked' | 'user_blocked';

export interface StoredToken {
  revoked: boolean;
  /** YYYY-MM-DD or null for no expiry. */
  expiresAt: string | null;
  userState: string;
}

/** A token is usable through the end of its expiry day (UTC), like GitLab's `expires_at` date. */
export function tokenState(t: StoredToken, today = utcDate(new Date())): TokenState {
  if (t.revoked) return 'revoked';
  if (t.expiresAt !== null && t.expiresAt <= today) return 'expired';
  if (t.userState !== 'active') return 'user_blocked';
  return 'active';
}

export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * Checks a token request: name present, scopes known and non-empty, expiry a real
 * future date within the maximum lifetime; an empty expiry becomes the maximum.
 * Returns the expiry to store.
 */
export function resolveNewToken(
  input: { name: string; scopes: string[]; expiresAt: string },
  now = new Date(),
): { expiresAt: string } {
  const errors: Record<string, string[]> = {};
  if (!input.name.trim()) errors.name = ["can't be blank"];
  if (input.scopes.length === 0) errors.scopes = ["can't be blank"];
  const unknown = input.scopes.filter((s) => !isTokenScope(s));
  if (unknown.length) errors.scopes = [...(errors.scopes ?? []), `${unknown.join(', ')} is not a valid scope`];
  const today = utcDate(now);
  const max = utcDate(new Date(now.getTime() + MAX_TOKEN_LIFETIME_DAYS * 86400000));
  let expiresAt = input.expiresAt;
  if (!expiresAt) {
    expiresAt = max;
  } else if (!isRealDate(expiresAt)) {
    errors.expires_at = ['is invalid'];
  } else if (expiresAt <= today) {
    errors.expires_at = ['must be in the future'];
  } else if (expiresAt > max) {
    errors.expires_at = [`must be before ${max}`];
  }
  if (Object.keys(errors).length) throw invalid(errors);
  return { expiresAt };
}

/** YYYY-MM-DD naming a day that exists (2027-02-30 does not). */
function isRealDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s;
}

/** The expiry of a rotated token: the date asked for (checked like a new token's), else a week from today (GitLab). */
export function rotatedExpiry(requested: string, now = new Date()): string {
  if (requested) return resolveNewToken({ name: 'rotated', scopes: ['api'], expiresAt: requested }, now).expiresAt;
  return utcDate(new Date(now.getTime() + 7 * 86400000));
}

/** Who may see and manage a token: its owner and administrators. */
export function canManageToken(actor: { kind: string; id: number; admin: boolean }, ownerId: number): boolean {
  return actor.admin || (actor.kind === 'user' && actor.id === ownerId);
}

/**
 * Reading or rotating a token the caller may not manage (or one that does not exist), lib/api/personal_access_tokens.rb
 * `get ':id'` / `post ':id/rotate'`: "Only admins should be informed if the token doesn't exist" —
 * `current_user.can_admin_all_resources? ? not_found! : unauthorized!`.
 */
export function tokenRefusal(actor: { admin: boolean }): DomainError {
  return actor.admin ? notFound() : unauthenticated();
}
