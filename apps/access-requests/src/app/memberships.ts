import { DomainError, type Actor } from '@glp/service-kit';
import type { SourceKind } from '../domain/access-request-rules';
import type { AccessRequestsDeps } from './deps';

export interface Membership {
  userId: number;
  username: string;
  name: string;
  state: string;
  avatarUrl: string;
  accessLevel: number;
  createdAt?: Date;
  expiresAt: string;
}

/**
 * Makes the user a member of the source through its owning service, as `actor` (which re-checks the permission).
 * Idempotent: a user who is already a member (an earlier attempt got through, or someone added them) is answered with
 * that membership.
 */
export async function ensureMember(deps: AccessRequestsDeps, actor: Actor, kind: SourceKind, sourceId: number, userId: number, level: number): Promise<Membership> {
  try {
    const member = kind === 'group'
      ? (await deps.identity.addGroupMember({ group: { selector: { $case: 'id', value: sourceId } }, userId, username: '', accessLevel: level, expiresAt: '' }, { actor })).member!
      : (await deps.projects.addProjectMember({ project: { selector: { $case: 'id', value: sourceId } }, userId, username: '', accessLevel: level, expiresAt: '' }, { actor })).member!;
    return fromMember(member);
  } catch (err) {
    if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
  }
  const existing = kind === 'group'
    ? (await deps.identity.getGroupMember({ group: { selector: { $case: 'id', value: sourceId } }, userId, inherited: false }, { actor })).member!
    : (await deps.projects.getProjectMember({ project: { selector: { $case: 'id', value: sourceId } }, userId, inherited: false }, { actor })).member!;
  return fromMember(existing);
}

function fromMember(m: { user?: { id: number; username: string; name: string; state: string; avatarUrl: string }; accessLevel: number; createdAt?: Date; expiresAt: string }): Membership {
  return {
    userId: m.user!.id, username: m.user!.username, name: m.user!.name, state: m.user!.state, avatarUrl: m.user!.avatarUrl,
    accessLevel: m.accessLevel, createdAt: m.createdAt, expiresAt: m.expiresAt,
  };
}
