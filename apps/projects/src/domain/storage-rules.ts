import { invalid } from '@glp/service-kit';

/**
 * The storage of a new project (`repository_storage`, administrators only: GitLab drops it for others): one of the
 * configured storages (else GitLab's `repository_storage is not included in the list`), or the first one.
 */
export function storageFor(requested: string | undefined, admin: boolean, storages: readonly string[]): string {
  const fallback = storages[0] ?? 'default';
  if (!requested || !admin) return fallback;
  if (!storages.includes(requested)) throw invalid({ repository_storage: ['is not included in the list'] });
  return requested;
}
