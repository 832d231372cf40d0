/** GitLab's access levels (`Gitlab::Access`), spec 2.1. */
export const ACCESS = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

/** The levels a group membership may have (Owner included: it is valid for groups). */
export const GROUP_MEMBER_LEVELS: readonly number[] = [5, 10, 20, 30, 40, 50];

const NAMES: Record<number, string> = {
  5: 'Minimal Access', 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner',
};

/** "Developer" for 30, as GitLab names levels in messages. */
export function accessLevelName(level: number): string {
  return NAMES[level] ?? String(level);
}
