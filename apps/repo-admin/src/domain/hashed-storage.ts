import { createHash } from 'node:crypto';

/**
 * GitLab's hashed storage path of a project's repository (`Storage::Hashed`): `@hashed/<h[0..2]>/<h[2..4]>/<h>.git`
 * where h is the SHA-256 of the project id. Renames and transfers never move it.
 */
export function hashedDiskPath(projectId: number): string {
  const h = createHash('sha256').update(String(projectId)).digest('hex');
  return `@hashed/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}.git`;
}

/** The wiki repository next to it (`<h>.wiki.git`). */
export const hashedWikiPath = (projectId: number) => hashedDiskPath(projectId).replace(/\.git$/, '.wiki.git');

/** A git ref name a client may give (`git check-ref-format --branch` rules, simplified and strict). */
export function isValidBranchName(name: string): boolean {
  if (!name || name.length > 255 || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.endsWith('.lock') || name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return false;
  return !/[\x00-\x20\x7f~^:?*[\\]/.test(name);
}
