import type { PoolClient } from '@glp/db';
import type { identityEventsV1 } from '@glp/proto';
import { upsertUsers } from '../store/users-replica-store';

/** UserCreated → the local users read model (what member listings show). */
export async function onUserCreated(client: PoolClient, event: identityEventsV1.UserCreated): Promise<void> {
  const u = event.user;
  if (!u) return;
  await upsertUsers(client, [{ id: u.id, username: u.username, name: u.name, state: u.state, avatar_url: u.avatarUrl }]);
}
