import type { EventEnvelope } from '@glp/events';
import { repositoryEventsV1 } from '@glp/proto';
import { type Actor } from '@glp/service-kit';
import { BareRepository } from '../disk/bare-repository';
import { PushReader, type PushedCommit } from '../disk/push-reader';
import { hashedDiskPath } from '../domain/hashed-storage';
import { boundPushEvent } from '../domain/push-event-bounds';
import { pushEventId } from '../domain/push-intent-rules';
import { decidePush } from '../domain/push-policy';
import {
  branchCommitRange, branchOf, commitTitle, defaultBranchOf, isBlankRev, parseRefUpdates, PUSH_COMMITS_LIMIT, refsInPushCounts, tagOf, type RefUpdate,
} from '../domain/ref-updates';
import { pushEnvelope, tagPushEnvelope } from '../events/push-events';
import { preReceiveDuration } from './metrics';
import { repositoryChangedEnvelope } from '../events/repository-events';
import type { GitHttpDeps } from './git-http-deps';
import { pusherOfUser, userById } from './users';
import type { PushSession } from './push-sessions';
import { reportStatisticsQuietly } from './statistics';

/** What a receive hook sends: git's ref updates (its stdin), the push options and the quarantine environment. */
export interface HookCall {
  changes: string;
  pushOptions: string[];
  quarantine: Record<string, string>;
}

/** What the hook prints (git relays each line as `remote: …`) and whether it exits 0. */
export interface HookAnswer {
  allowed: boolean;
  messages: string[];
}


/** The project's default branch before the push: HEAD's branch, or GitLab's choice when HEAD's branch does not exist. */
async function currentDefaultBranch(deps: GitHttpDeps, session: PushSession): Promise<string | undefined> {
  const head = await new BareRepository(deps.git, session.repoDir).headBranch();
  return defaultBranchOf(head, await new PushReader(deps.git, session.repoDir).branches());
}

/**
 * pre-receive: the objects are in quarantine, no ref moved yet. The push policies decide; a refusal is printed as
 * GitLab's hooks print it (`GitLab: <message>`) and git turns every ref of the push into `[remote rejected]`.
 */
export async function preReceive(deps: GitHttpDeps, session: PushSession, call: HookCall): Promise<HookAnswer> {
  let changes: RefUpdate[];
  try {
    changes = parseRefUpdates(call.changes);
  } catch {
    return { allowed: false, messages: ['GitLab: Invalid changes'] };
  }
  const started = process.hrtime.bigint();
  const observed: { pushRulesActive?: boolean } = {};
  const verdict = await decidePush({
    projectId: session.projectId, actor: session.actor, service: session.service, changes, defaultBranch: await currentDefaultBranch(deps, session),
    pushOptions: call.pushOptions, quarantine: call.quarantine, repoDir: session.repoDir, observed,
  }, deps.pushPolicies);
  preReceiveDuration.observe(
    { push_rules_active: observed.pushRulesActive ? 'true' : 'false', outcome: verdict.allowed ? 'allowed' : 'refused' },
    Number(process.hrtime.bigint() - started) / 1e9,
  );
  if (!verdict.allowed) return { allowed: false, messages: [`GitLab: ${verdict.message}`] };
  // Before git moves a ref: what lets a later start finish the push should this process die before post-receive's hand-off.
  session.intent = await deps.pushIntents.record({
    id: session.id, projectId: session.projectId, storage: deps.storage, actor: session.actor, changes: call.changes, at: new Date().toISOString(),
  });
  return { allowed: true, messages: [] };
}

/** The pusher as push payloads show them (GitLab: name, username and the public e-mail); the username when identity cannot say. */
async function pusherOf(deps: GitHttpDeps, actor: Actor): Promise<repositoryEventsV1.Pusher> {
  const fallback = repositoryEventsV1.Pusher.fromPartial({ userId: actor.id, username: actor.username, name: actor.username });
  if (actor.kind !== 'user' || actor.id <= 0) return fallback;
  try {
    const user = await userById(deps, actor.id);
    return user ? pusherOfUser(user) : fallback;
  } catch (err) {
    // The refs moved already: an identity outage only costs the pusher's details.
    deps.logger.warn({ err, user_id: actor.id }, 'pusher not read from identity');
    return fallback;
  }
}

export const toPushCommit = (c: PushedCommit) => repositoryEventsV1.PushCommit.fromPartial({
  id: c.id, message: c.message, title: commitTitle(c.message), timestamp: c.committedAt, authorName: c.authorName, authorEmail: c.authorEmail,
  added: c.added, modified: c.modified, removed: c.removed,
});

type RefEvent = { kind: 'push'; event: repositoryEventsV1.Push } | { kind: 'tag'; event: repositoryEventsV1.TagPush };

/**
 * The Push or TagPush of one ref update (GitLab `Gitlab::DataBuilder::Push.build` via `Git::BranchHooksService` /
 * `Git::TagHooksService`): for a branch the newest 20 commits of its range (oldest first) and the range's full count, and
 * `checkout_sha` = the new commit; for a tag the one commit it points at. A deleted ref has no commits and no
 * checkout_sha. Other refs (not a branch nor a tag) have no event. Every event is bounded in size (boundPushEvent).
 */
export async function refEvent(
  reader: PushReader, projectId: number, update: RefUpdate, defaultBranch: string | undefined, pusher: repositoryEventsV1.Pusher, pushedAt: Date,
  refsInPush: number,
): Promise<RefEvent | undefined> {
  const base = { projectId, ref: update.ref, before: update.oldRev, after: update.newRev, pusher, pushedAt, refsInPush };
  if (branchOf(update.ref) !== undefined) {
    const range = branchCommitRange(update, defaultBranch);
    const commits = range ? await reader.commits(range, PUSH_COMMITS_LIMIT) : [];
    const total = range ? await reader.countCommits(range) : 0;
    return {
      kind: 'push',
      event: boundPushEvent(
        repositoryEventsV1.Push.fromPartial({ ...base, checkoutSha: range ? update.newRev : '', commits: commits.map(toPushCommit), totalCommitsCount: total }),
        (e) => repositoryEventsV1.Push.encode(e).finish().length,
      ),
    };
  }
  if (tagOf(update.ref) !== undefined) {
    const target = isBlankRev(update.newRev) ? undefined : await reader.peelToCommit(update.newRev);
    const commit = target ? await reader.commit(target) : undefined;
    return {
      kind: 'tag',
      event: boundPushEvent(
        repositoryEventsV1.TagPush.fromPartial({ ...base, checkoutSha: target ?? '', commits: commit ? [toPushCommit(commit)] : [], totalCommitsCount: commit ? 1 : 0 }),
        (e) => repositoryEventsV1.TagPush.encode(e).finish().length,
      ),
    };
  }
  return undefined;
}

/** A push whose refs moved: its id (the session's), project, pusher and repository. */
export type CompletedPush = Pick<PushSession, 'id' | 'projectId' | 'actor' | 'repoDir'>;

/**
 * post-receive: the refs moved. Completes the push (completePush), then removes its intent: its events are written or
 * spooled now.
 */
export async function postReceive(deps: GitHttpDeps, session: PushSession, call: HookCall): Promise<HookAnswer> {
  await completePush(deps, session, parseRefUpdates(call.changes), new Date());
  if (session.intent) await deps.pushIntents.settle(session.intent);
  // The repository's size and commit count moved too (GitLab refreshes the statistics after a push).
  await reportStatisticsQuietly(deps, session.projectId);
  return { allowed: true, messages: [] };
}

/**
 * What follows a push whose refs moved (post-receive, or the recovery of a push whose post-receive did not finish). When
 * HEAD points at a branch that does not exist (the first push to an empty repository), HEAD moves to GitLab's default
 * branch choice among the branches now there. Then, in one transaction: the repository's row, a Push per branch and a
 * TagPush per tag in the order git reported them, and RepositoryChanged (empty, default branch, pushed_at) from which
 * projects updates `empty_repo`, `default_branch` and `last_activity_at`, handed to PushEventHandOff (written now, or
 * spooled on disk while PostgreSQL does not answer). The events' ids derive from the push's id and the ref, so building
 * them twice gives the same ids.
 */
export async function completePush(deps: GitHttpDeps, push: CompletedPush, changes: RefUpdate[], pushedAt: Date): Promise<void> {
  const repo = new BareRepository(deps.git, push.repoDir);
  const reader = new PushReader(deps.git, push.repoDir);
  const branches = await reader.branches();
  let head = await repo.headBranch();
  if (!branches.includes(head)) {
    const chosen = defaultBranchOf(head, branches);
    if (chosen) {
      await repo.setHead(chosen);
      head = chosen;
    }
  }
  const defaultBranch = branches.includes(head) ? head : undefined;
  const pusher = await pusherOf(deps, push.actor);
  const envelopes: EventEnvelope[] = [];
  const refsInPush = refsInPushCounts(changes);
  const cause = { id: push.actor.id, username: push.actor.username };
  for (const [i, update] of changes.entries()) {
    const e = await refEvent(reader, push.projectId, update, defaultBranch, pusher, pushedAt, refsInPush[i]!);
    const eventId = pushEventId(push.id, update.ref);
    if (e) envelopes.push(e.kind === 'push' ? pushEnvelope(e.event, cause, eventId) : tagPushEnvelope(e.event, cause, eventId));
  }
  const empty = branches.length === 0;
  await deps.pushEvents.deliver({
    repository: { projectId: push.projectId, storage: deps.storage, diskPath: hashedDiskPath(push.projectId), empty, defaultBranch: head },
    topic: deps.topic,
    events: [
      ...envelopes,
      repositoryChangedEnvelope({ projectId: push.projectId, empty, defaultBranch: head, pushedAt }, pushEventId(push.id, 'RepositoryChanged')),
    ],
  });
}
