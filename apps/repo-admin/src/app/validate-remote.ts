import { badRequest, rejected } from '@glp/service-kit';
import { prepareRemote, remoteAnswers } from '../disk/remote';
import { REMOTE_UNREACHABLE } from '../domain/job-rules';
import type { RepoAdminDeps } from './deps';

/** How long the probe of a remote may take (GitLab gives its import probe a short budget). */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * GitLab's `Import::ValidateRemoteGitEndpointService` (newest: URL security first, then Gitaly's `RemoteService.exists?`):
 * the URL must pass the outbound URL rules (else `rejected(<the rule's reason>)`), then answer `git ls-remote` (else
 * `badRequest(<GitLab's message>)`): the pull mirror API words the two differently.
 */
export async function validateRemote(deps: Pick<RepoAdminDeps, 'git' | 'remoteRules'>, url: string): Promise<void> {
  const prepared = await prepareRemote(url, deps.remoteRules);
  if (!prepared.ok) throw rejected(prepared.reason);
  if (!(await remoteAnswers(deps.git.gitBin, prepared.remote, { timeoutMs: Math.min(PROBE_TIMEOUT_MS, deps.git.timeoutMs) }))) {
    throw badRequest(REMOTE_UNREACHABLE);
  }
}
