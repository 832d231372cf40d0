import { randomBytes } from 'node:crypto';

/**
 * GitLab 18's naming of a namespace (project or group) marked for deletion and restored
 * (Namespaces::MarkForDeletionBaseService, Namespaces::RestoreBaseService): one definition for projects and identity.
 */
const SCHEDULED_INFIX = 'deletion_scheduled';
/** What GitLab's restore strips: its current infix and the legacy `deleted` one. */
const SCHEDULED_SUFFIX = /-(?:deleted|deletion_scheduled)-\d+$/;

/** The name or path a project or group takes when marked (`suffixed_identifier`): its original path is free meanwhile. */
export function scheduledIdentifier(value: string, id: number): string {
  return `${value}-${SCHEDULED_INFIX}-${id}`;
}

/**
 * The name and path a restored project or group takes back (`updated_value`): the marking suffix stripped, and when the
 * original is taken meanwhile, `-` and 5 random letters or digits (the same for both).
 */
export function restoredIdentifiers(
  current: { name: string; path: string },
  taken: { name: boolean; path: boolean },
  random: string,
): { name: string; path: string } {
  const suffix = taken.name || taken.path ? `-${random}` : '';
  return { name: current.name.replace(SCHEDULED_SUFFIX, '') + suffix, path: current.path.replace(SCHEDULED_SUFFIX, '') + suffix };
}

/** The original name and path of a marked project or group, before any suffix for a taken one. */
export function originalIdentifiers(current: { name: string; path: string }): { name: string; path: string } {
  return restoredIdentifiers(current, { name: false, path: false }, '');
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Ruby's SecureRandom.alphanumeric (the restore suffix). */
export function randomAlphanumeric(n: number): string {
  return Array.from(randomBytes(n), (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');
}
