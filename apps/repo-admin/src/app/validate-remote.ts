import { rejected } from '@glp/service-kit';
import { prepareRemote, remoteAnswers } from '../disk/remote';
import { REMOTE_UNREACHABLE } from '../domain/job-rules';
import type { RepoAdminDeps } from './deps';

/** How long the probe of a remote may take (GitLab gives its import probe a short budget). */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * GitLab's `Import::ValidateRemoteGitEndpointService` (newest: URL security first, then Gitaly's `RemoteService.exists?`):
 * the URL must pass the outbound URL rules, then answer `git ls-remote`. Refusals are `rejected(<GitLab's message>)`.
 */
export async function validateRemote(deps: Pick<RepoAdminDeps, 'git' | 'remoteRules'>, url: string): Promise<void> {
  const prepared = await prepareRemote(url, deps.remoteRules);
  if (!prepared.ok) throw rejected(prepared.reason);
  if (!(await remoteAnswers(deps.git.gitBin, prepared.remote, { timeoutMs: Math.min(PROBE_TIMEOUT_MS, deps.git.timeoutMs) }))) {
    throw rejected(REMOTE_UNREACHABLE);
  }
}
