import { badRequest } from '@glp/service-kit';

/**
 * A project's activity as GitLab records and lists it (`app/models/event.rb`, `app/models/push_event.rb`,
 * `app/services/event_create_service.rb`, `app/services/push_event_payload_service.rb`, `app/finders/events_finder.rb`).
 * Pure: no I/O.
 */

/** The actions this system records: project created/imported, member joined/left, refs pushed. */
export type RecordedAction = 'created' | 'joined' | 'left' | 'pushed';

/** GitLab's `push_event_activities_limit` (application setting, default 3): more refs of a kind and action → one bulk event. */
export const PUSH_EVENT_ACTIVITIES_LIMIT = 3;

/** GitLab's `PushEventPayload` (columns of `push_event_payloads`). */
export interface PushPayload {
  commitCount: number;
  action: 'created' | 'removed' | 'pushed';
  refType: 'branch' | 'tag';
  commitFrom: string | null;
  commitTo: string | null;
  ref: string | null;
  commitTitle: string | null;
  refCount: number | null;
}

/**
 * `Event#action_name`: a push says what happened to the ref (`PushEvent#push_action_name`; a bulk push counts as a
 * push to existing refs unless it created or removed them), a created project says "imported" when the project was
 * imported from a URL (`Project#external_import?`).
 */
export function actionName(action: RecordedAction, push: Pick<PushPayload, 'action'> | null, projectImported: boolean): string {
  switch (action) {
    case 'pushed':
      return push?.action === 'created' ? 'pushed new' : push?.action === 'removed' ? 'deleted' : 'pushed to';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'created':
      return projectImported ? 'imported' : 'created';
  }
}

/** The title an event keeps of a push's newest commit: its first line, stripped, at most 70 characters (Rails `truncate(70)`). */
export function pushCommitTitle(message: string | undefined): string | null {
  if (message === undefined) return null;
  const newline = message.indexOf('\n');
  const line = [...(newline >= 0 ? message.slice(0, newline + 1) : message).trim()];
  return line.length > 70 ? `${line.slice(0, 67).join('')}...` : line.join('');
}

const isBlankRev = (rev: string) => /^0+$/.test(rev);

/** `Gitlab::Git.ref_name`: the ref without `refs/heads/`, `refs/tags/` or `refs/remotes/`. */
export const refName = (ref: string) => ref.replace(/^refs\/(tags|heads|remotes)\//, '');

/** A Push or TagPush of repo-admin as the event needs it. */
export interface RefPush {
  refType: 'branch' | 'tag';
  ref: string;
  before: string;
  after: string;
  /** Oldest first; the last is the newest. */
  commitMessages: string[];
  totalCommitsCount: number;
  /** Refs of the same kind and action in the same push (0: unknown). */
  refsInPush: number;
  pusherId: number;
  pushedAt: Date;
}

/**
 * The event of one ref update (`EventCreateService#push`): its payload; or, when the push moved more refs of this
 * kind and action than `PUSH_EVENT_ACTIVITIES_LIMIT` (`Git::ProcessRefChangesService`), the push's one bulk event
 * (`#bulk_push`: no commits, `ref_count`), identified by `bulkKey` so that every ref of the group yields the same row.
 */
export function pushEventOf(p: RefPush): { payload: PushPayload; bulkKey: string | null } {
  const action = isBlankRev(p.before) ? 'created' : isBlankRev(p.after) ? 'removed' : 'pushed';
  if (p.refsInPush > PUSH_EVENT_ACTIVITIES_LIMIT) {
    return {
      payload: { commitCount: 0, action, refType: p.refType, commitFrom: null, commitTo: null, ref: null, commitTitle: null, refCount: p.refsInPush },
      bulkKey: `${p.pushedAt.toISOString()}|${p.pusherId}|${p.refType}|${action}`,
    };
  }
  return {
    payload: {
      commitCount: p.totalCommitsCount,
      action,
      refType: p.refType,
      commitFrom: action === 'created' ? null : p.before,
      commitTo: action === 'removed' ? null : p.after,
      ref: refName(p.ref),
      commitTitle: pushCommitTitle(p.commitMessages[p.commitMessages.length - 1]),
      refCount: null,
    },
    bulkKey: null,
  };
}

/** `ProjectMember#post_create_hook`: no "joined" event for the holder of the personal namespace the project is in. */
export function recordsJoin(namespaceOwnerId: number | null, userId: number): boolean {
  return namespaceOwnerId !== userId;
}

export interface EventListInput {
  action: string;
  targetType: string;
  /** YYYY-MM-DD or empty. */
  before: string;
  after: string;
  sort: string;
}

/** What a listing reads, after GitLab's filters and the caller's right to see pushes. */
export interface EventListFilter {
  /** Nothing can match (a target type: no event here has a target). */
  none: boolean;
  action?: RecordedAction;
  /** Leave push events out (`Event#visible_to_user?`: pushes need `download_code`). */
  withoutPushes: boolean;
  /** created_at < this. */
  createdBefore?: Date;
  /** created_at >= this (GitLab: after the end of the `after` day). */
  createdFrom?: Date;
  order: 'asc' | 'desc';
}

const RECORDED: readonly string[] = ['created', 'joined', 'left', 'pushed'];
const DAY_MS = 86_400_000;

function dayStart(name: string, value: string): Date | undefined {
  if (value === '') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)) : undefined;
  if (!d || d.getUTCMonth() !== +m![2]! - 1 || d.getUTCDate() !== +m![3]!) throw badRequest(`${name} is invalid`);
  return d;
}

/**
 * `EventsFinder` on a project. Which values `action` and `target_type` may take is GitLab's params validation (the
 * gateway's); here an action this system never records, and any target type (no event here has a target), match
 * nothing. `before` keeps events created before that day began, `after` those created after it ended (UTC); ordered
 * by id, newest first unless `sort=asc`.
 */
export function eventListFilter(input: EventListInput, canReadCode: boolean): EventListFilter {
  const before = dayStart('before', input.before);
  const after = dayStart('after', input.after);
  const action = input.action === '' ? undefined : input.action;
  return {
    none: input.targetType !== '' || (action !== undefined && !RECORDED.includes(action)) || (action === 'pushed' && !canReadCode),
    action: action as RecordedAction | undefined,
    withoutPushes: !canReadCode,
    createdBefore: before,
    createdFrom: after && new Date(after.getTime() + DAY_MS),
    order: input.sort === 'asc' ? 'asc' : 'desc',
  };
}
