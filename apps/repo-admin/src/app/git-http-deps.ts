import type { PushPolicy } from '../domain/push-policy';
import type { RepoAdminDeps } from './deps';
import type { PushSessions } from './push-sessions';

/** What git over HTTP needs: the service's deps, the receive hooks and the pushes running. */
export interface GitHttpDeps extends Pick<RepoAdminDeps, 'pool' | 'identity' | 'topic' | 'git' | 'storageRoot' | 'storage' | 'logger'> {
  /** `core.hooksPath` of receive-pack, and the Unix socket its hooks call. */
  hooks: { dir: string; socketPath: string };
  sessions: PushSessions;
  /** The pre-receive checks (DEFAULT_PUSH_POLICIES when unset; `startGitOverHttp` adds push rules when a client is given). */
  pushPolicies?: readonly PushPolicy[];
}
