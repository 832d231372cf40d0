import { identityV1 } from '@glp/proto';
import type { MemberWithUser } from '../store/group-members-store';
import type { GroupRow, Selector } from '../store/groups-store';
import { toProtoUser } from './mappers';

export function toProtoGroup(g: GroupRow): identityV1.Group {
  return identityV1.Group.fromPartial({
    id: g.id,
    name: g.name,
    path: g.path,
    fullPath: g.full_path,
    fullName: g.full_name,
    description: g.description,
    visibility: g.visibility,
    requestAccessEnabled: g.request_access_enabled,
    parentId: g.parent_id ?? 0,
    createdAt: g.created_at,
    callerAccessLevel: g.caller_access,
    markedForDeletionOn: g.marked_for_deletion_on ?? '',
  });
}

export function toProtoGroupNamespace(n: GroupRow): identityV1.Namespace {
  return identityV1.Namespace.fromPartial({
    id: n.id, name: n.name, path: n.path, kind: n.kind, fullPath: n.full_path, parentId: n.parent_id ?? 0, avatarUrl: '', version: n.version,
    selfOrAncestorMarkedForDeletion: n.self_or_ancestor_marked,
  });
}

export function toProtoMember(m: MemberWithUser): identityV1.GroupMember {
  return identityV1.GroupMember.fromPartial({
    user: toProtoUser(m.user),
    accessLevel: m.access_level,
    createdAt: m.created_at,
    expiresAt: m.expires_at ?? '',
    groupId: m.group_id,
    createdById: m.created_by_id ?? 0,
    createdBy: m.created_by ? toProtoUser(m.created_by) : undefined,
  });
}

/** The selector of a request; a missing one selects nothing (NOT_FOUND downstream). */
export function fromProtoSelector(sel: identityV1.GroupSelector | undefined): Selector {
  const s = sel?.selector;
  if (s?.$case === 'id') return { id: s.value };
  if (s?.$case === 'fullPath') return { fullPath: s.value };
  return { id: 0 };
}

/** Page numbers as the gateway sends them (1-based; per page 1..100). */
export function pageOf(page: number, perPage: number): { page: number; perPage: number } {
  return { page: Math.max(1, page || 1), perPage: Math.min(100, Math.max(1, perPage || 20)) };
}
