import type { PushPolicy } from '../domain/push-policy';
import type { RepoAdminDeps } from './deps';
import type { PushEventHandOff } from './push-event-handoff';
import type { PushIntents } from './push-intents';
import type { PushSessions } from './push-sessions';

/** What git over HTTP needs: the service's deps, the receive hooks and the pushes running. */
export interface GitHttpDeps extends Pick<RepoAdminDeps, 'pool' | 'identity' | 'topic' | 'git' | 'storageRoot' | 'storage' | 'logger'> {
  /** `core.hooksPath` of receive-pack, and the Unix socket its hooks call. */
  hooks: { dir: string; socketPath: string };
  sessions: PushSessions;
  /** Where post-receive hands a completed push's events (written, or spooled while the database does not answer). */
  pushEvents: Pick<PushEventHandOff, 'deliver'>;
  /** Where pre-receive records an allowed push before its refs move, and post-receive settles it after the hand-off. */
  pushIntents: Pick<PushIntents, 'record' | 'settle'>;
  /** The pre-receive checks (DEFAULT_PUSH_POLICIES when unset; `startGitOverHttp` adds push rules when a client is given). */
  pushPolicies?: readonly PushPolicy[];
  /**
   * How long a request for a project whose repository is not on disk yet waits for it (default 0). The gateway only
   * forwards requests for projects that exist, and their repositories are created from ProjectCreated a moment later:
   * a client that creates a project and pushes at once (GitLab creates the repository in the request) waits instead of
   * getting "A repository for this project does not exist yet."
   */
  repositoryWaitMs?: number;
}
