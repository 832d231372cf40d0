import type { PoolClient } from '@glp/db';
import { appendEvent, EventTypes } from '@glp/events';
import { identityEventsV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import type { NamespaceRow, UserRow } from '../store/user-rows';

function userSnapshot(u: UserRow): identityEventsV1.UserSnapshot {
  return identityEventsV1.UserSnapshot.fromPartial({
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    avatarUrl: '',
    isAdmin: u.is_admin,
    createdAt: u.created_at,
  });
}

/** Outboxes UserCreated (key user:<id>) in the caller's transaction. */
export async function recordUserCreated(client: PoolClient, topic: string, user: UserRow, actor?: Actor): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'user',
    aggregateKey: `user:${user.id}`,
    payloadType: EventTypes.UserCreated,
    payload: identityEventsV1.UserCreated.fromPartial({ user: userSnapshot(user) }),
    actor,
  });
}

/** Outboxes NamespaceChanged (key namespace:<id>) with the namespace's current version. */
export async function recordNamespaceChanged(
  client: PoolClient,
  topic: string,
  ns: NamespaceRow,
  owner: UserRow | undefined,
  actor?: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'namespace',
    aggregateKey: `namespace:${ns.id}`,
    payloadType: EventTypes.NamespaceChanged,
    payload: identityEventsV1.NamespaceChanged.fromPartial({
      namespace: {
        id: ns.id,
        name: ns.name,
        path: ns.path,
        kind: ns.kind,
        fullPath: ns.full_path,
        parentId: ns.parent_id ?? 0,
        owner: owner ? userSnapshot(owner) : undefined,
        version: ns.version,
        markedForDeletionOn: ns.marked_for_deletion_on ?? '',
        selfOrAncestorMarkedForDeletion: ns.self_or_ancestor_marked ?? false,
      },
    }),
    actor,
  });
}

/** Outboxes NamespaceDeleted (key namespace:<id>): the group (or a deleted user's namespace) is gone. */
export async function recordNamespaceDeleted(
  client: PoolClient,
  topic: string,
  ns: { id: number; full_path: string; kind?: 'user' | 'group' },
  actor?: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'namespace',
    aggregateKey: `namespace:${ns.id}`,
    payloadType: EventTypes.NamespaceDeleted,
    payload: identityEventsV1.NamespaceDeleted.fromPartial({ id: ns.id, kind: ns.kind ?? 'group', fullPath: ns.full_path }),
    actor,
  });
}

/** Outboxes GroupMembershipChanged (key namespace:<group id>); access level 0 means the membership was removed. */
export async function recordGroupMembershipChanged(
  client: PoolClient,
  topic: string,
  m: { groupId: number; userId: number; accessLevel: number; expiresAt: string | null },
  actor?: Actor,
): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'namespace',
    aggregateKey: `namespace:${m.groupId}`,
    payloadType: EventTypes.GroupMembershipChanged,
    payload: identityEventsV1.GroupMembershipChanged.fromPartial({
      groupId: m.groupId, userId: m.userId, accessLevel: m.accessLevel, expiresAt: m.expiresAt ?? '',
    }),
    actor,
  });
}

/** Outboxes UserChanged (key user:<id>): public fields or state changed. */
export async function recordUserChanged(client: PoolClient, topic: string, user: UserRow, actor?: Actor): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'user',
    aggregateKey: `user:${user.id}`,
    payloadType: EventTypes.UserChanged,
    payload: identityEventsV1.UserChanged.fromPartial({ user: userSnapshot(user) }),
    actor,
  });
}

/** Outboxes UserDeleted (key user:<id>). */
export async function recordUserDeleted(client: PoolClient, topic: string, userId: number, actor?: Actor): Promise<void> {
  await appendEvent(client, {
    topic,
    aggregateType: 'user',
    aggregateKey: `user:${userId}`,
    payloadType: EventTypes.UserDeleted,
    payload: identityEventsV1.UserDeleted.fromPartial({ id: userId }),
    actor,
  });
}
