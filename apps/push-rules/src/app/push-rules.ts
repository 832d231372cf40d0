import { withTransaction } from '@glp/db';
import type { pushRulesV1 } from '@glp/proto';
import { DomainError, invalid, notFound, type Actor } from '@glp/service-kit';
import { applyChanges, DEFAULT_SETTINGS, validateSettings, type PushRuleChanges } from '../domain/push-rule-attributes';
import { deletePushRule as deleteRow, findPushRule, insertPushRule, updatePushRule as updateRow, type PushRuleRow } from '../store/push-rules-store';
import type { PushRulesDeps } from './deps';
import { projectForPushRule } from './project-access';

/**
 * Project push rule CRUD (GitLab EE `ee/lib/api/project_push_rule.rb`): the caller must see the project and be
 * Maintainer+ or administrator. Invalid input is refused whole (400 with the model's errors): nothing is written.
 */

/** GitLab's 422 `error!("Project push rule exists", 422)`, carried as `conflict` (ALREADY_EXISTS). */
export const RULE_EXISTS = 'Project push rule exists';
/** `not_found!('Push Rule')` → "404 Push Rule Not Found". */
const NO_RULE = 'Push Rule';

export async function getPushRule(deps: PushRulesDeps, actor: Actor, ref: pushRulesV1.ProjectRef | undefined): Promise<PushRuleRow | undefined> {
  const projectId = await projectForPushRule(deps, actor, ref);
  return findPushRule(deps.pool, projectId);
}

function validated(changes: PushRuleChanges, current = DEFAULT_SETTINGS) {
  const next = applyChanges(current, changes);
  const errors = validateSettings(next);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return next;
}

export async function createPushRule(deps: PushRulesDeps, actor: Actor, ref: pushRulesV1.ProjectRef | undefined, changes: PushRuleChanges): Promise<PushRuleRow> {
  const projectId = await projectForPushRule(deps, actor, ref);
  // `if user_project.push_rule → error!` comes before the model is built: an existing rule wins over bad input.
  if (await findPushRule(deps.pool, projectId)) throw new DomainError('conflict', RULE_EXISTS);
  const settings = validated(changes);
  const row = await insertPushRule(deps.pool, projectId, settings);
  if (!row) throw new DomainError('conflict', RULE_EXISTS); // a concurrent create won
  return row;
}

export async function updatePushRule(deps: PushRulesDeps, actor: Actor, ref: pushRulesV1.ProjectRef | undefined, changes: PushRuleChanges): Promise<PushRuleRow> {
  const projectId = await projectForPushRule(deps, actor, ref);
  return withTransaction(deps.pool, async (client) => {
    const current = await findPushRule(client, projectId, true);
    if (!current) throw notFound(NO_RULE);
    const row = await updateRow(client, projectId, validated(changes, current));
    if (!row) throw notFound(NO_RULE);
    return row;
  });
}

/** Idempotent (spec 4.8, 7): a project without a rule is left as it is (the project and the caller's role still checked). */
export async function deletePushRule(deps: PushRulesDeps, actor: Actor, ref: pushRulesV1.ProjectRef | undefined): Promise<void> {
  const projectId = await projectForPushRule(deps, actor, ref);
  await deleteRow(deps.pool, projectId);
}
