/**
 * The `:trigger` of POST /projects/:id/hooks/:hook_id/test/:trigger: `ProjectHook.triggers.values`
 * (`app/models/hooks/project_hook.rb`, `lib/api/hooks/trigger_test.rb`), any other value is Grape's
 * 400 "trigger does not have a valid value".
 */
export const TEST_TRIGGERS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events',
  'merge_requests_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'feature_flag_events',
  'releases_events', 'milestone_events', 'emoji_events', 'resource_access_token_events', 'resource_deploy_token_events',
  'vulnerability_events',
] as const;

export function isTestTrigger(trigger: string): boolean {
  return (TEST_TRIGGERS as readonly string[]).includes(trigger);
}

export const INVALID_TRIGGER = 'trigger does not have a valid value';
