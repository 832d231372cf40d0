/**
 * A hook's event flags (the API's `*_events`) and GitLab's hook names (`ProjectHook.triggers`,
 * `app/models/hooks/project_hook.rb`), which name the delivery log's `trigger` and the X-Gitlab-Event header.
 */
export const HOOK_NAMES: Readonly<Record<string, string>> = Object.freeze({
  push_events: 'push_hooks',
  tag_push_events: 'tag_push_hooks',
  issues_events: 'issue_hooks',
  confidential_issues_events: 'confidential_issue_hooks',
  note_events: 'note_hooks',
  confidential_note_events: 'confidential_note_hooks',
  merge_requests_events: 'merge_request_hooks',
  job_events: 'job_hooks',
  pipeline_events: 'pipeline_hooks',
  wiki_page_events: 'wiki_page_hooks',
  deployment_events: 'deployment_hooks',
  feature_flag_events: 'feature_flag_hooks',
  releases_events: 'release_hooks',
  milestone_events: 'milestone_hooks',
  emoji_events: 'emoji_hooks',
  resource_access_token_events: 'resource_access_token_hooks',
  resource_deploy_token_events: 'resource_deploy_token_hooks',
  vulnerability_events: 'vulnerability_hooks',
  repository_update_events: 'repository_update_hooks',
});

/** `WebHookService.hook_to_event`: the hook name singularized and titleized ("push_hooks" → "Push Hook"). */
export function gitlabEventHeader(hookName: string): string {
  return hookName
    .replace(/s$/, '')
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/**
 * What testing a trigger needs that this platform does not have (GitLab's `Integrations::ProjectTestData`, the
 * "TestHooks|Ensure the project has …" messages). Push and tag push have data; every other trigger is refused with
 * GitLab's message, or "Testing not available for this hook" when GitLab builds no sample for it.
 */
export const TEST_DATA_MISSING: Readonly<Record<string, string>> = Object.freeze({
  issues_events: 'Ensure the project has issues.',
  confidential_issues_events: 'Ensure the project has issues.',
  note_events: 'Ensure the project has notes.',
  confidential_note_events: 'Ensure the project has notes.',
  emoji_events: 'Ensure the project has notes.',
  merge_requests_events: 'Ensure the project has merge requests.',
  job_events: 'Ensure the project has CI jobs.',
  pipeline_events: 'Ensure the project has CI pipelines.',
  wiki_page_events: 'Ensure the wiki is enabled and has pages.',
  deployment_events: 'Ensure the project has deployments.',
  releases_events: 'Ensure the project has releases.',
});

export const TESTING_NOT_AVAILABLE = 'Testing not available for this hook';

/** Why a trigger cannot be tested here (undefined: push and tag push, which can). */
export function untestableReason(trigger: string): string | undefined {
  if (trigger === 'push_events' || trigger === 'tag_push_events') return undefined;
  return TEST_DATA_MISSING[trigger] ?? TESTING_NOT_AVAILABLE;
}
