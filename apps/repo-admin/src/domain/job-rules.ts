/** What the job worker does for a project's repository. */
export type JobKind = 'create' | 'fork' | 'remove' | 'import' | 'housekeeping' | 'mirror';

export interface CreatePayload {
  defaultBranch: string;
  initializeWithReadme: boolean;
  projectName: string;
  description: string;
  creatorId: number;
}

export interface ForkPayload {
  sourceProjectId: number;
  /** Branches to copy (empty: all). */
  branches: string[];
}

/** GitLab's answer when a remote does not answer as a git repository (`Import::ValidateRemoteGitEndpointService`). */
export const REMOTE_UNREACHABLE = 'Unable to access repository with the URL and credentials provided';

/** Retry backoff after a failed attempt n (1-based): 2 s, 4 s, 8 s … capped at 5 min. */
export function retryDelayMs(attempt: number): number {
  return Math.min(300_000, 2000 * 2 ** Math.max(0, attempt - 1));
}

/** A fork's `branches` param as GitLab reads it: comma-separated names, blanks dropped (empty: every branch). */
export function parseBranches(branches: string): string[] {
  return branches.split(',').map((b) => b.trim()).filter((b) => b.length > 0);
}

/** The README GitLab commits for `initialize_with_readme` (its short form: the name, then the description). */
export function readmeContent(projectName: string, description: string): string {
  return description ? `# ${projectName}\n\n${description}\n` : `# ${projectName}\n`;
}

/** A housekeeping job (`POST /projects/:id/housekeeping`): the task, and the job id the API answered with. */
export interface HousekeepingPayload {
  task: 'eager' | 'prune';
  jid: string;
}
