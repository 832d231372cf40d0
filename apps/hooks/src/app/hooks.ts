import { withTransaction } from '@glp/db';
import type { hooksV1 } from '@glp/proto';
import { recordNotFound, type Actor } from '@glp/service-kit';
import { isBranchFilterStrategy } from '../domain/branch-filter';
import { applyChanges, isEmptyChange, type Applied, type HookChanges } from '../domain/hook-attributes';
import { createRefused, errorBody400, NO_PARAMETERS, updateRefused } from '../domain/hook-errors';
import { DEFAULT_PROJECT_HOOKS_LIMIT, hooksLimitError, hooksLimitReached } from '../domain/hook-limits';
import { recordHookDeleted, recordHookUpdated } from '../events/hook-events';
import {
  countProjectHooks, deleteHook as deleteRow, findHook, insertHook, listHooks as listRows, lockProjectHooks, updateHook as updateRow, type HookRow,
} from '../store/hooks-store';
import type { HooksDeps } from './deps';
import { recordOf, stateOf } from './hook-codec';
import { projectForHooks } from './project-access';
import { urlRefusal } from './url-check';

/**
 * Project hooks CRUD (GitLab `lib/api/project_hooks.rb`, `lib/api/helpers/web_hooks_helpers.rb`,
 * `app/services/web_hooks/create_service.rb`): every call asks projects as the caller (404 hidden, 403 below
 * Maintainer); an unknown hook or another project's is ActiveRecord's "404 Not found".
 */

export async function listHooks(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, page: number, perPage: number): Promise<{ rows: HookRow[]; total: number }> {
  const projectId = await projectForHooks(deps, actor, ref);
  return listRows(deps.pool, projectId, perPage, (page - 1) * perPage);
}

export async function getHook(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number): Promise<HookRow> {
  const projectId = await projectForHooks(deps, actor, ref);
  const row = await findHook(deps.pool, projectId, hookId);
  if (!row) throw recordNotFound();
  return row;
}

function checkStrategy(c: HookChanges): void {
  // Grape `values: WebHook.branch_filter_strategies.keys` (the gateway checks it first; a direct caller gets the same).
  if (c.branchFilterStrategy !== undefined && !isBranchFilterStrategy(c.branchFilterStrategy)) {
    throw errorBody400('branch_filter_strategy does not have a valid value');
  }
}

/**
 * The model's validations with the URL rules: the URL as saved is checked unless the hook has url variables (then the
 * interpolated URL, and only when nothing else failed), as `web_hooks/hook.rb` declares them.
 */
async function validate(deps: HooksDeps, applied: Applied): Promise<Applied['errors']> {
  const errors = { ...applied.errors };
  if (applied.urlAttribute === 'url') {
    if (!errors.url) {
      const reason = await urlRefusal(deps, applied.urlToCheck);
      if (reason) errors.url = [`is blocked: ${reason}`];
    }
  } else if (Object.keys(errors).length === 0) {
    const reason = await urlRefusal(deps, applied.urlToCheck);
    if (reason) errors.interpolated_url = [`is blocked: ${reason}`];
  }
  return errors;
}

/**
 * POST: the model's validations, the project's hook limit among them (`Limitable`, on create only: "Maximum number of
 * project hooks (100) exceeded", nothing stored). The limit is checked again in the insert's transaction under a
 * per-project lock, so concurrent creates cannot pass it together.
 */
export async function createHook(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, changes: HookChanges): Promise<HookRow> {
  const projectId = await projectForHooks(deps, actor, ref);
  checkStrategy(changes);
  const limit = deps.projectHooksLimit ?? DEFAULT_PROJECT_HOOKS_LIMIT;
  const applied = applyChanges(undefined, changes);
  const errors = await validate(deps, applied);
  if (hooksLimitReached(await countProjectHooks(deps.pool, projectId), limit)) errors.base = [hooksLimitError(limit)];
  if (Object.keys(errors).length > 0) throw createRefused(errors);
  return withTransaction(deps.pool, async (client) => {
    await lockProjectHooks(client, projectId);
    if (hooksLimitReached(await countProjectHooks(client, projectId), limit)) throw createRefused({ base: [hooksLimitError(limit)] });
    return insertHook(client, projectId, recordOf(deps.secretBox, applied.state));
  });
}

/**
 * PUT: the hook (404), then "No parameters provided" (400), then the model. Saved with HookUpdated in the same
 * transaction; an edited hook is executable again.
 */
export async function updateHook(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number, changes: HookChanges): Promise<HookRow> {
  const projectId = await projectForHooks(deps, actor, ref);
  const current = await findHook(deps.pool, projectId, hookId);
  if (!current) throw recordNotFound();
  if (isEmptyChange(changes)) throw errorBody400(NO_PARAMETERS);
  checkStrategy(changes);
  // Validated outside the transaction (DNS may take seconds); the row is re-read locked and the edit re-applied to it.
  const firstPass = applyChanges(stateOf(deps.secretBox, current), changes);
  const errors = await validate(deps, firstPass);
  if (Object.keys(errors).length > 0) throw updateRefused(errors);
  return withTransaction(deps.pool, async (client) => {
    const locked = await findHook(client, projectId, hookId, true);
    if (!locked) throw recordNotFound();
    const applied = applyChanges(stateOf(deps.secretBox, locked), changes);
    // The URL that was vetted is the one saved, unless the hook was edited meanwhile: then vet it again.
    const sameUrl = applied.urlToCheck === firstPass.urlToCheck && applied.urlAttribute === firstPass.urlAttribute;
    const lockedErrors = sameUrl ? applied.errors : await validate(deps, applied);
    if (Object.keys(lockedErrors).length > 0) throw updateRefused(lockedErrors);
    const row = await updateRow(client, hookId, recordOf(deps.secretBox, applied.state));
    await recordHookUpdated(client, deps.topic, { id: row.id, projectId }, actor);
    return row;
  });
}

/**
 * DELETE: the hook goes with HookDeleted in the same transaction (its pending deliveries are dropped). Idempotent
 * (spec 4.7): no such hook in the project is no change, answered without a hook (the project is still checked).
 */
export async function deleteHook(deps: HooksDeps, actor: Actor, ref: hooksV1.ProjectRef | undefined, hookId: number): Promise<HookRow | undefined> {
  const projectId = await projectForHooks(deps, actor, ref);
  return withTransaction(deps.pool, async (client) => {
    const row = await deleteRow(client, projectId, hookId);
    if (row) await recordHookDeleted(client, deps.topic, { id: row.id, projectId }, actor);
    return row;
  });
}
