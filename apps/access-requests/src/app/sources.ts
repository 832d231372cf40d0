import type { accessRequestsV1 } from '@glp/proto';
import { accessRequestsV1 as pb } from '@glp/proto';
import { badRequest, type Actor } from '@glp/service-kit';
import type { SourceFacts, SourceKind } from '../domain/access-request-rules';
import type { AccessRequestsDeps } from './deps';

export function sourceKind(s: accessRequestsV1.Source | undefined): SourceKind {
  if (s?.kind === pb.SourceKind.SOURCE_KIND_GROUP) return 'group';
  if (s?.kind === pb.SourceKind.SOURCE_KIND_PROJECT) return 'project';
  throw badRequest('source kind is required');
}

/**
 * The source as the owning service shows it to the caller (asked as the caller: NOT_FOUND "Group"/"Project" when it is
 * hidden from them, which is the answer the API gives too).
 */
export async function sourceFacts(deps: AccessRequestsDeps, actor: Actor, s: accessRequestsV1.Source | undefined): Promise<SourceFacts> {
  const kind = sourceKind(s);
  const sel = s?.selector;
  const selector = sel?.$case === 'fullPath' ? { $case: 'fullPath' as const, value: sel.value } : { $case: 'id' as const, value: sel?.$case === 'id' ? sel.value : 0 };
  if (kind === 'group') {
    const { group } = await deps.identity.getGroup({ group: { selector } }, { actor });
    return { kind, id: group!.id, callerAccess: group!.callerAccessLevel, requestAccessEnabled: group!.requestAccessEnabled };
  }
  const { project } = await deps.projects.getProject({ selector, withCustomAttributes: false, statistics: false }, { actor });
  return { kind, id: project!.id, callerAccess: project!.callerAccessLevel, requestAccessEnabled: project!.settings?.requestAccessEnabled ?? true };
}
