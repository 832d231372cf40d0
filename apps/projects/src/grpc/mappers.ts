import { projectsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import { effectiveSettings } from '../domain/project-settings';
import { effectiveAccess, type VisibilityLevel } from '../domain/visibility';
import type { ProjectRow } from '../store/project-rows';
import { accessFacts } from '../app/read-project';

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

/**
 * `levels`: the caller's level in the project's group namespace (0 none, or a personal namespace) and through the
 * groups it is shared with.
 */
export function toProtoProject(r: ProjectRow, actor: Actor, levels: { groupAccess: number; shareAccess: number } = NO_ACCESS): projectsV1.Project {
  const { groupAccess, shareAccess } = levels;
  const personal = r.ns_kind === 'user' && r.ns_owner_id !== null;
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
    settings: effectiveSettings(r.settings, r.visibility),
    importStatus: r.import_status,
    emptyRepo: true,
    repositoryStorage: r.repository_storage,
    openIssuesCount: 0,
    callerAccessLevel: effectiveAccess(actor, accessFacts(r, groupAccess, shareAccess)),
    projectAccessLevel: actor.kind === 'user' ? r.member_access : 0,
    markedForDeletionOn: r.marked_for_deletion_on ?? '',
    groupAccessLevel: actor.kind === 'user' ? groupAccess : 0,
    sharedWithGroups: r.share_links.map((l) => ({
      groupId: l.group_id, groupName: l.group_name ?? '', groupFullPath: l.group_full_path ?? '', groupAccessLevel: l.group_access, expiresAt: l.expires_at ?? '',
    })),
  });
}
