import type { pushRulesV1 } from '@glp/proto';
import { DomainError } from '@glp/service-kit';
import { HttpError } from '../http/errors';
import { defineParams, p } from '../http/params';
import { route, type RouteDef } from '../http/route';
import { pushRuleEntity } from '../presenters/push-rule';
import { projectSelector } from './project-routes';

/**
 * Project push rules (GitLab EE `ee/lib/api/project_push_rule.rb`; spec 4.8, reference §16.1). Signed-in callers;
 * the push-rules service decides (404 hidden project, 403 below Maintainer, "404 Push Rule Not Found" without a rule).
 */

const RULE_PARAMS = {
  deny_delete_tag: p.boolean(),
  member_check: p.boolean(),
  prevent_secrets: p.boolean(),
  commit_message_regex: p.string(),
  commit_message_negative_regex: p.string(),
  branch_name_regex: p.string(),
  author_email_regex: p.string(),
  file_name_regex: p.string(),
  max_file_size: p.int32(),
  commit_committer_check: p.boolean(),
  commit_committer_name_check: p.boolean(),
  reject_unsigned_commits: p.boolean(),
  reject_non_dco_commits: p.boolean(),
};
const RULE_KEYS = Object.keys(RULE_PARAMS) as (keyof typeof RULE_PARAMS)[];

/** `params :push_rule_params`: every attribute optional, `at_least_one_of` all of them (Grape's 400 otherwise). */
const ruleParams = () => defineParams({ id: p.string().required(), ...RULE_PARAMS }).atLeastOneOf(...RULE_KEYS);

type RuleParams = { [K in keyof typeof RULE_PARAMS]?: unknown };

function ruleInput(params: RuleParams): pushRulesV1.PushRuleInput {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
  return {
    commitMessageRegex: str(params.commit_message_regex), commitMessageNegativeRegex: str(params.commit_message_negative_regex),
    branchNameRegex: str(params.branch_name_regex), authorEmailRegex: str(params.author_email_regex), fileNameRegex: str(params.file_name_regex),
    denyDeleteTag: bool(params.deny_delete_tag), memberCheck: bool(params.member_check), preventSecrets: bool(params.prevent_secrets),
    commitCommitterCheck: bool(params.commit_committer_check), commitCommitterNameCheck: bool(params.commit_committer_name_check),
    rejectUnsignedCommits: bool(params.reject_unsigned_commits), rejectNonDcoCommits: bool(params.reject_non_dco_commits),
    maxFileSize: typeof params.max_file_size === 'number' ? params.max_file_size : undefined,
  };
}

function project(id: string | null | undefined): pushRulesV1.ProjectRef {
  const selector = projectSelector(id ?? '');
  if (!selector) throw HttpError.notFound('Project');
  return { selector };
}

/** An existing rule is `error!("Project push rule exists", 422)` → `{"message": "Project push rule exists"}`. */
async function pushRules<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'conflict') throw HttpError.unprocessable(err.message);
    throw err;
  }
}

export const pushRuleRoutes: RouteDef[] = [
  route({
    method: 'GET', path: '/projects/:id/push_rule', access: 'user', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      const { rule } = await pushRules(() => services.pushRules.getPushRule({ project: project(params.id) }));
      // `present nil` → the JSON body `null`
      return { body: rule ? pushRuleEntity(rule) : null };
    },
  }),
  route({
    method: 'POST', path: '/projects/:id/push_rule', access: 'user', params: ruleParams(),
    handler: async ({ params, services }) => {
      const { rule } = await pushRules(() => services.pushRules.createPushRule({ project: project(params.id), input: ruleInput(params) }));
      return { status: 201, body: pushRuleEntity(rule!) };
    },
  }),
  route({
    method: 'PUT', path: '/projects/:id/push_rule', access: 'user', params: ruleParams(),
    handler: async ({ params, services }) => {
      const { rule } = await pushRules(() => services.pushRules.updatePushRule({ project: project(params.id), input: ruleInput(params) }));
      return { body: pushRuleEntity(rule!) };
    },
  }),
  route({
    method: 'DELETE', path: '/projects/:id/push_rule', access: 'user', params: defineParams({ id: p.string().required() }),
    handler: async ({ params, services }) => {
      await pushRules(() => services.pushRules.deletePushRule({ project: project(params.id) }));
      return { status: 204 };
    },
  }),
];
