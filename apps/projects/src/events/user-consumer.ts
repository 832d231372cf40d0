import type { PoolClient } from '@glp/db';
import type { identityEventsV1 } from '@glp/proto';
import { removeUserStars } from '../store/stars-store';
import { removeUser, upsertUsers } from '../store/users-replica-store';

/** UserCreated / UserChanged → the local users read model (what member listings show). */
export async function onUserSnapshot(client: PoolClient, event: identityEventsV1.UserCreated | identityEventsV1.UserChanged): Promise<void> {
  const u = event.user;
  if (!u) return;
  await upsertUsers(client, [{ id: u.id, username: u.username, name: u.name, state: u.state, avatar_url: u.avatarUrl }]);
}

/** UserDeleted → their project memberships, their stars (star counts lowered) and their read-model row go. */
export async function onUserDeleted(client: PoolClient, event: identityEventsV1.UserDeleted): Promise<void> {
  await removeUserStars(client, event.id);
  await removeUser(client, event.id);
}
