import { untrustedMatch } from '@glp/untrusted-regexp';
import { BRANCH_PREFIX, TAG_PREFIX } from './ref-updates';

/** The mirror configuration repo-admin receives from projects (GetImportSource). */
export interface MirrorOptions {
  onlyProtectedBranches: boolean;
  overwriteDiverged: boolean;
  /** GitLab's `mirror_branch_regex` (RE2, linear time): only matching branches are mirrored. */
  branchRegex: string | undefined;
}

/** GitLab's message when a mirror left diverged branches alone (`Projects::UpdateMirrorService`). */
export const DIVERGED_ERROR = 'Some refs have diverged and have not been updated on the downstream repository.';

/**
 * Which upstream branches a pull mirror takes (`Projects::UpdateMirrorService#update_branches`): all; with
 * `only_mirror_protected_branches` the protected ones (no branch protection exists here yet: the default branch, which
 * GitLab protects by default); with `mirror_branch_regex` those matching it (`Gitlab::UntrustedRegexp`: RE2, so no
 * pattern and branch name can hold the job worker). An invalid regex (saved before it was validated) mirrors nothing.
 */
export function mirroredBranch(branch: string, defaultBranch: string | undefined, opts: MirrorOptions): boolean {
  if (opts.onlyProtectedBranches && branch !== defaultBranch) return false;
  if (opts.branchRegex) return untrustedMatch(opts.branchRegex, branch, false, false);
  return true;
}

export type BranchDecision = 'create' | 'fast-forward' | 'overwrite' | 'diverged' | 'unchanged';

/**
 * What a mirror update does to one local branch: create it, fast-forward it, leave it (equal), or — when the local
 * branch has commits the upstream lacks (diverged) — overwrite it only with `mirror_overwrites_diverged_branches`.
 */
export function decideBranch(local: string | undefined, upstream: string, localIsAncestor: boolean, overwriteDiverged: boolean): BranchDecision {
  if (!local) return 'create';
  if (local === upstream) return 'unchanged';
  if (localIsAncestor) return 'fast-forward';
  return overwriteDiverged ? 'overwrite' : 'diverged';
}

/** The temporary namespace an update fetches into, and the real ref a temporary one stands for. */
export const MIRROR_NAMESPACE = 'refs/glp-mirror/';
export const upstreamRef = (ref: string) => (ref.startsWith(MIRROR_NAMESPACE) ? `refs/${ref.slice(MIRROR_NAMESPACE.length)}` : undefined);
export const MIRROR_REFSPECS = [`+${BRANCH_PREFIX}*:${MIRROR_NAMESPACE}heads/*`, `+${TAG_PREFIX}*:${MIRROR_NAMESPACE}tags/*`];

/** When the next scheduled update is due (GitLab: `Gitlab::Mirror` schedules by interval, with backoff after failures). */
export function nextUpdateDelayMs(intervalMs: number, failed: boolean, consecutiveFailures: number): number {
  if (!failed) return intervalMs;
  return Math.min(intervalMs * 2 ** Math.min(consecutiveFailures, 6), 24 * 60 * 60 * 1000);
}
