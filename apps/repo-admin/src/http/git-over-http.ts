import path from 'node:path';
import { closeHttpServer, type Logger } from '@glp/service-kit';
import type { RepoAdminDeps } from '../app/deps';
import { PushEventHandOff } from '../app/push-event-handoff';
import { PushIntents, startPushIntentsReconciler } from '../app/push-intents';
import { PushSessions } from '../app/push-sessions';
import { pushRulesPolicy } from '../app/push-rules-check';
import { DEFAULT_PUSH_POLICIES } from '../domain/push-policy';
import type { GitHttpLimits } from '../domain/git-http-limits';
import { installGitHooks } from '../disk/git-hooks';
import { startGitHttpServer } from './git-http-server';
import { startHookServer } from './hook-server';

/** The spool of pushes' events under the storage root (next to `@hashed` and `@uploads`). */
export const PUSH_EVENTS_SPOOL = '@push-events';
/** The intents of pushes in flight, under the storage root. */
export const PUSH_INTENTS_DIR = '@push-intents';
/** How often intents left by a failed post-receive are looked for while the process runs (all of them at start). */
const INTENTS_RECONCILE_MS = 60_000;

/** Limits left unset (tests of other behaviour): none in practice. */
const UNLIMITED: GitHttpLimits = { storageConcurrency: Number.MAX_SAFE_INTEGER, clientConcurrency: Number.MAX_SAFE_INTEGER, maxDecompressedBytes: Number.MAX_SAFE_INTEGER };

/**
 * Git over HTTP in repo-admin: the receive hooks written to a private directory, the Unix socket they call, and the HTTP
 * listener the gateway proxies clones, fetches and pushes to, and the hand-off of pushes' events (spool in
 * `<storageRoot>/@push-events`). `stop` closes the listener (in-flight requests get `graceMs`), then the hooks' socket (a
 * push finishing calls it), then removes the hooks and stops the hand-off (what is still spooled waits for the next start).
 * At start, pushes whose intent a previous process left (`<storageRoot>/@push-intents`) are finished first.
 */
export async function startGitOverHttp(
  deps: Pick<RepoAdminDeps, 'pool' | 'identity' | 'topic' | 'git' | 'storageRoot' | 'storage' | 'logger'> & Partial<Pick<RepoAdminDeps, 'pushRules'>>,
  opts: { host: string; port: number; actorSecret: string; logger: Logger; repositoryWaitMs?: number; limits?: Partial<GitHttpLimits> },
): Promise<{ port: number; hookSocket: string; stop(graceMs: number): Promise<void> }> {
  const hooks = await installGitHooks();
  // The project's push rule is checked after GitLab's access, branch and tag checks (EE ChangeAccess#exec order).
  const pushRules = deps.pushRules;
  const pushPolicies = pushRules ? [...DEFAULT_PUSH_POLICIES, pushRulesPolicy({ ...deps, pushRules })] : undefined;
  const pushEvents = new PushEventHandOff({ pool: deps.pool, logger: deps.logger, dir: path.join(deps.storageRoot, PUSH_EVENTS_SPOOL) });
  await pushEvents.start();
  const pushIntents = new PushIntents(path.join(deps.storageRoot, PUSH_INTENTS_DIR));
  const gitDeps = {
    ...deps, hooks: { dir: hooks.dir, socketPath: hooks.socketPath }, sessions: new PushSessions(), pushPolicies, repositoryWaitMs: opts.repositoryWaitMs, pushEvents,
    pushIntents,
  };
  // Pushes a previous process left between its refs moving and their events' hand-off, before any new push.
  const reconciler = await startPushIntentsReconciler(gitDeps, pushIntents, INTENTS_RECONCILE_MS);
  const hookServer = await startHookServer(gitDeps, hooks.socketPath);
  const { server, port } = await startGitHttpServer(gitDeps, { ...opts, limits: { ...UNLIMITED, ...opts.limits } });
  return {
    port,
    hookSocket: hooks.socketPath,
    async stop(graceMs) {
      await closeHttpServer(server, graceMs);
      await closeHttpServer(hookServer, 1000);
      await hooks.remove();
      await reconciler.stop();
      await pushEvents.stop();
    },
  };
}
