import type { pushRulesV1 } from '@glp/proto';
import { forbidden, notFound, type Actor } from '@glp/service-kit';
import { mayAdminPushRule } from '../domain/push-rule-access';
import type { PushRulesDeps } from './deps';

/**
 * The project `ref` names, asked of projects AS THE CALLER (404 Project Not Found when the caller cannot see it,
 * `moved` relayed unchanged), then GitLab's `authorize_admin_project`: Maintainer+ or administrator, else 403.
 */
export async function projectForPushRule(deps: Pick<PushRulesDeps, 'projects'>, actor: Actor, ref: pushRulesV1.ProjectRef | undefined): Promise<number> {
  if (!ref?.selector) throw notFound('Project');
  const { project } = await deps.projects.getProject({ selector: ref.selector, withCustomAttributes: false, statistics: false }, { actor });
  if (!project) throw notFound('Project');
  if (!mayAdminPushRule(actor, project.callerAccessLevel)) throw forbidden();
  return project.id;
}
