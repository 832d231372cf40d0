import type { JobKind } from './job-rules';

/**
 * Jobs after which a repository is measured again and its statistics reported: every job that leaves a repository on
 * disk (fork copy, import, housekeeping, …), as GitLab refreshes ProjectStatistics after creating, importing, pushing
 * and garbage-collecting. A create records its statistics itself, with the repository's row; a removal leaves nothing
 * to measure.
 */
export const measuredAfter = (kind: JobKind): boolean => kind !== 'remove' && kind !== 'create';
