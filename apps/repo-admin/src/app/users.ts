import { identityV1, repositoryEventsV1 } from '@glp/proto';
import { DomainError, systemActor } from '@glp/service-kit';
import type { RepoAdminDeps } from './deps';

const SERVICE = systemActor('repo-admin');

/** A user as identity knows them, read as this service; undefined when there is no such user (deleted). */
export async function userById(deps: Pick<RepoAdminDeps, 'identity'>, id: number): Promise<identityV1.User | undefined> {
  try {
    return (await deps.identity.getUser({ selector: { $case: 'id', value: id } }, { actor: SERVICE })).user;
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'not_found') return undefined;
    throw err;
  }
}

/** A user as a push payload's pusher (GitLab: name, username and the public e-mail). */
export const pusherOfUser = (user: identityV1.User) =>
  repositoryEventsV1.Pusher.fromPartial({ userId: user.id, username: user.username, name: user.name || user.username, email: user.publicEmail });
