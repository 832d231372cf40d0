import type { Actor } from '@glp/service-kit';
import type { GitService } from './git-http-rules';
import { isValidBranchName } from './hashed-storage';
import { branchOf, isBlankRev, tagOf, type RefUpdate } from './ref-updates';

/**
 * Whether a push may land, decided in the pre-receive hook (objects received, refs not moved yet) — GitLab's
 * `/internal/allowed` with `Gitlab::GitAccess#check` and `Gitlab::Checks::ChangesAccess`. A policy looks at the push and
 * answers; the first refusal wins and its message reaches the client as git reports hook failures
 * (`remote: GitLab: <message>`, `! [remote rejected] … (pre-receive hook declined)`).
 *
 * The seam for push rules: a later policy (commit message, author, file name and size rules of a project's push rule)
 * is one more `PushPolicy` in the list; `quarantine` is the git environment (GIT_OBJECT_DIRECTORY, …) under which the
 * pushed objects can be read before they are accepted.
 */
export interface PushContext {
  projectId: number;
  /** Who pushes (signed by the gateway, which checked their access). */
  actor: Actor;
  /** The git service the gateway's grant was for. */
  service: GitService;
  changes: readonly RefUpdate[];
  /** The project's default branch before the push (undefined: no branch yet). */
  defaultBranch: string | undefined;
  /** Push options (`git push -o`). */
  pushOptions: readonly string[];
  quarantine: Readonly<Record<string, string>>;
  /** The repository on disk (read under `quarantine`). */
  repoDir: string;
  /** What the policies saw, for the check's metrics (push rules set `pushRulesActive`). */
  observed?: { pushRulesActive?: boolean };
}

export type PushVerdict = { allowed: true } | { allowed: false; message: string };
export type PushPolicy = (ctx: PushContext) => PushVerdict | Promise<PushVerdict>;

const ALLOWED: PushVerdict = { allowed: true };
const refuse = (message: string): PushVerdict => ({ allowed: false, message });

/** GitLab's messages (`lib/gitlab/git_access.rb`, `lib/gitlab/checks/branch_check.rb`, `tag_check.rb`). */
export const PUSH_MESSAGES = {
  pushCode: 'You are not allowed to push code to this project.',
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  hexBranchName: 'You cannot create a branch with a 40-character hexadecimal branch name.',
  defaultBranchCollision: 'You cannot use default branch name to create a tag',
  prohibitedTagName: 'You cannot create a tag with a prohibited pattern.',
  shaTagName: 'You cannot create a tag with a SHA-1 or SHA-256 tag name.',
  /** Not GitLab's (git refuses such names itself before any hook); for names git accepts and this platform does not. */
  invalidBranchName: 'You cannot create a branch with an invalid name.',
  /** Not GitLab's: refs outside branches and tags are this platform's own (Gitaly hides and refuses its own likewise). */
  refOutsideNamespaces: 'You cannot push to a ref outside refs/heads/ and refs/tags/.',
} as const;

/**
 * Access: only a signed-in user whose grant is for receive-pack pushes (the gateway gave it to Developers and above of
 * a project that is not archived, with the repository feature available — GitLab's `push_code`).
 */
export const accessPolicy: PushPolicy = (ctx) =>
  ctx.actor.kind === 'user' && ctx.actor.id > 0 && ctx.service === 'git-receive-pack' ? ALLOWED : refuse(PUSH_MESSAGES.pushCode);

/**
 * Only branches and tags are pushed. A ref anywhere else (`refs/foo/x`, `refs/merge-requests/…`, this platform's own
 * `refs/glp-mirror/…`) would bring commits no branch or tag check saw, which a later push of the same commit to a branch
 * would then no longer count as new; so creating or moving one is refused. Deleting one (left from before) is allowed.
 */
export const refNamespacePolicy: PushPolicy = (ctx) => {
  for (const change of ctx.changes) {
    if (isBlankRev(change.newRev)) continue;
    if (branchOf(change.ref) === undefined && tagOf(change.ref) === undefined) return refuse(PUSH_MESSAGES.refOutsideNamespaces);
  }
  return ALLOWED;
};

/** GitLab `BranchCheck`: the default branch is never deleted; no branch is named like a commit id. */
export const branchPolicy: PushPolicy = (ctx) => {
  for (const change of ctx.changes) {
    const branch = branchOf(change.ref);
    if (branch === undefined) continue;
    if (isBlankRev(change.newRev)) {
      if (branch === ctx.defaultBranch) return refuse(PUSH_MESSAGES.deleteDefaultBranch);
      continue;
    }
    if (/^[0-9a-f]{40}(-\/|\/|$)/i.test(branch)) return refuse(PUSH_MESSAGES.hexBranchName);
    if (isBlankRev(change.oldRev) && !isValidBranchName(branch)) return refuse(PUSH_MESSAGES.invalidBranchName);
  }
  return ALLOWED;
};

/**
 * GitLab `TagCheck` (without protected tags, which do not exist here; Developers may change existing tags, as
 * `admin_tag` comes with `push_code`): a new tag is not named like the default branch, nor like a commit id, and its
 * name is a valid ref name that does not itself start with `refs/heads/`, `refs/remotes/` or `refs/tags/`.
 */
export const tagPolicy: PushPolicy = (ctx) => {
  for (const change of ctx.changes) {
    const tag = tagOf(change.ref);
    if (tag === undefined || isBlankRev(change.newRev)) continue;
    if (isBlankRev(change.oldRev) && tag === ctx.defaultBranch) return refuse(PUSH_MESSAGES.defaultBranchCollision);
    // Gitlab::GitRefValidator.validate: a valid ref name, not HEAD, not starting with a full ref prefix or "-".
    if (!isValidBranchName(tag) || tag === 'HEAD' || /^refs\/(heads|remotes|tags)\//.test(tag)) return refuse(PUSH_MESSAGES.prohibitedTagName);
    if (/^[0-9a-f]{40}/i.test(tag)) return refuse(PUSH_MESSAGES.shaTagName);
  }
  return ALLOWED;
};

/** The policies every push passes, in GitLab's order (access, then per-change branch and tag checks). */
export const DEFAULT_PUSH_POLICIES: readonly PushPolicy[] = [accessPolicy, refNamespacePolicy, branchPolicy, tagPolicy];

/** Runs the policies in order; the first refusal is the answer. */
export async function decidePush(ctx: PushContext, policies: readonly PushPolicy[] = DEFAULT_PUSH_POLICIES): Promise<PushVerdict> {
  for (const policy of policies) {
    const verdict = await policy(ctx);
    if (!verdict.allowed) return verdict;
  }
  return ALLOWED;
}
