import { projectsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import { effectiveSettings, withContainerPolicySchedule } from '../domain/project-settings';
import type { ProjectExtras } from '../app/project-extras';
import type { StatisticsRow } from '../store/statistics-store';
import { mayReadRunnersToken } from '../domain/runners-token-rules';
import { canReadProject, effectiveAccess, type VisibilityLevel } from '../domain/visibility';
import type { ForkSourceRow, ProjectRow } from '../store/project-rows';
import { accessFacts, type GroupLevels, type ProjectLevels } from '../app/read-project';

const VISIBILITY_TO_PROTO: Record<VisibilityLevel, projectsV1.Visibility> = {
  private: projectsV1.Visibility.VISIBILITY_PRIVATE,
  internal: projectsV1.Visibility.VISIBILITY_INTERNAL,
  public: projectsV1.Visibility.VISIBILITY_PUBLIC,
};

export function visibilityFromProto(v: projectsV1.Visibility): VisibilityLevel | undefined {
  switch (v) {
    case projectsV1.Visibility.VISIBILITY_PRIVATE: return 'private';
    case projectsV1.Visibility.VISIBILITY_INTERNAL: return 'internal';
    case projectsV1.Visibility.VISIBILITY_PUBLIC: return 'public';
    default: return undefined;
  }
}

const NO_ACCESS = { groupAccess: 0, shareAccess: 0 };
const NO_EXTRAS: ProjectExtras = {};

const toProtoStatistics = (s: StatisticsRow): projectsV1.ProjectStatistics => ({
  commitCount: s.commit_count, storageSize: s.storage_size, repositorySize: s.repository_size, wikiSize: s.wiki_size,
  lfsObjectsSize: s.lfs_objects_size, jobArtifactsSize: s.job_artifacts_size, pipelineArtifactsSize: s.pipeline_artifacts_size,
  packagesSize: s.packages_size, snippetsSize: s.snippets_size, uploadsSize: s.uploads_size, containerRegistrySize: s.container_registry_size,
});

/**
 * The fork source as `forked_from_project` (BasicProjectDetails fields only), when the caller may read it (GitLab:
 * `if: project.forked? && can?(current_user, :read_project, project.forked_from_project)`); else undefined.
 */
function forkSourceProto(src: ForkSourceRow, actor: Actor, levels: GroupLevels = NO_ACCESS): projectsV1.Project | undefined {
  const facts = {
    visibility: src.visibility, memberAccess: src.member_access, namespaceOwnerId: src.ns_owner_id,
    groupAccess: levels.groupAccess, shareAccess: levels.shareAccess, pendingDelete: src.pending_delete,
  };
  if (!canReadProject(actor, facts)) return undefined;
  return projectsV1.Project.fromPartial({
    id: src.id, name: src.name, path: src.path, description: src.description ?? undefined, visibility: VISIBILITY_TO_PROTO[src.visibility],
    namespace: { id: src.namespace_id, name: src.ns_name, path: src.ns_path, kind: src.ns_kind, fullPath: src.ns_full_path, parentId: src.ns_parent_id ?? 0 },
    owner: src.ns_kind === 'user' && src.ns_owner_id !== null ? { id: src.ns_owner_id, name: src.owner_name ?? '' } : undefined,
    createdAt: new Date(src.created_at), lastActivityAt: new Date(src.last_activity_at), defaultBranch: src.default_branch ?? '',
    starCount: src.star_count, forksCount: src.forks_count, topics: [...src.topics].sort((a, b) => a.localeCompare(b)),
    settings: effectiveSettings(src.settings, src.visibility), callerAccessLevel: effectiveAccess(actor, facts),
  });
}

/**
 * `levels`: the caller's level in the project's group namespace (0 none, or a personal namespace) and through the
 * groups it is shared with.
 */
export function toProtoProject(r: ProjectRow, actor: Actor, levels: ProjectLevels = NO_ACCESS, extras: ProjectExtras = NO_EXTRAS): projectsV1.Project {
  const { groupAccess, shareAccess } = levels;
  const personal = r.ns_kind === 'user' && r.ns_owner_id !== null;
  const callerAccess = effectiveAccess(actor, accessFacts(r, groupAccess, shareAccess));
  return projectsV1.Project.fromPartial({
    id: r.id,
    name: r.name,
    path: r.path,
    description: r.description ?? undefined,
    visibility: VISIBILITY_TO_PROTO[r.visibility],
    namespace: {
      id: r.namespace_id, name: r.ns_name, path: r.ns_path, kind: r.ns_kind, fullPath: r.ns_full_path,
      parentId: r.ns_parent_id ?? 0, avatarUrl: '',
    },
    owner: personal
      ? { id: r.ns_owner_id!, username: r.owner_username ?? '', name: r.owner_name ?? '', state: r.owner_state ?? 'active', avatarUrl: '' }
      : undefined,
    creatorId: r.creator_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastActivityAt: r.last_activity_at,
    defaultBranch: r.default_branch ?? '',
    archived: r.archived,
    starCount: r.star_count,
    forksCount: r.forks_count,
    topics: [...r.topics].sort((a, b) => a.localeCompare(b)),
    settings: withContainerPolicySchedule(effectiveSettings(r.settings, r.visibility), r.created_at),
    importStatus: r.import_status,
    emptyRepo: r.empty_repo,
    repositoryStorage: r.repository_storage,
    openIssuesCount: 0,
    callerAccessLevel: callerAccess,
    projectAccessLevel: actor.kind === 'user' ? r.member_access : 0,
    markedForDeletionOn: r.marked_for_deletion_on ?? '',
    groupAccessLevel: actor.kind === 'user' ? groupAccess : 0,
    forked: r.fork_source !== null,
    forkedFromProject: r.fork_source ? forkSourceProto(r.fork_source, actor, levels.source) : undefined,
    importError: r.import_error ?? '',
    // GitLab shows import_url (masked) and import_type to those who administer the project.
    importUrl: r.import_source && mayReadRunnersToken(actor, callerAccess) ? r.import_source.url_masked : '',
    importType: r.import_source?.import_type ?? '',
    mirror: r.import_source ? {
      mirror: r.import_source.mirror, mirrorTriggerBuilds: r.import_source.mirror_trigger_builds,
      onlyMirrorProtectedBranches: r.import_source.only_mirror_protected_branches,
      mirrorOverwritesDivergedBranches: r.import_source.mirror_overwrites_diverged_branches,
      mirrorUserId: r.import_source.mirror_user_id ?? undefined, mirrorBranchRegex: r.import_source.mirror_branch_regex ?? undefined,
    } : undefined,
    statistics: extras.statistics && toProtoStatistics(extras.statistics),
    runnersToken: mayReadRunnersToken(actor, callerAccess) ? r.runners_token : '',
    sharedWithGroups: r.share_links.map((l) => ({
      groupId: l.group_id, groupName: l.group_name ?? '', groupFullPath: l.group_full_path ?? '', groupAccessLevel: l.group_access, expiresAt: l.expires_at ?? '',
    })),
  });
}
