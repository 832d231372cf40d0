import type { Pool } from '@glp/db';
import type { identityV1, projectsV1, pushRulesV1 } from '@glp/proto';
import type { Logger, PromiseClient } from '@glp/service-kit';
import type { GitRunner } from '../disk/bare-repository';
import type { RemoteRules } from '../disk/remote';
import type { JobCapacity } from '../domain/job-capacity';

export interface RepoAdminDeps {
  pool: Pool;
  /** Who made a commit (the README's author): identity's users, read as this service. */
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getUser'>;
  /**
   * push-rules (PUSH_RULES_GRPC_ADDR), asked as this service in the pre-receive check (GetPushChecks, CheckPush); unset
   * only in tests that push without push rules.
   */
  pushRules?: Pick<PromiseClient<pushRulesV1.PushRulesServiceClient>, 'getPushChecks' | 'checkPush'>;
  /** Import sources (URLs with credentials), asked as this service; projects as the caller sees them (`getProject`). */
  projects: Pick<PromiseClient<projectsV1.ProjectsServiceClient>, 'getImportSource' | 'getProject'>;
  /** The outbound URL rules imports and mirrors follow. */
  remoteRules: RemoteRules;
  /** Topic of this service's events. */
  topic: string;
  git: GitRunner;
  /** Absolute storage root of this replica, and the shard name it serves. */
  storageRoot: string;
  storage: string;
  logger: Logger;
  /** Repository jobs at once per process, and their kinds' time limits (JOB_CONCURRENCY, JOB_QUICK_CONCURRENCY, JOB_*TIME_LIMIT_MS). */
  jobs: JobCapacity;
  jobMaxAttempts: number;
  /** Time between scheduled pull-mirror updates (GitLab's mirror interval). */
  mirrorIntervalMs: number;
  /** The byte limit of one upload (MAX_ATTACHMENT_SIZE, GitLab's `max_attachment_size`). */
  maxAttachmentBytes: number;
  /**
   * How long a request for a project's repository that is still being created (from ProjectCreated, a moment after
   * POST /projects answered) waits for it (GIT_REPOSITORY_WAIT_MS): snapshots here, clones and pushes in git-http-deps.
   */
  repositoryWaitMs?: number;
}
