import type { hooksV1 } from '@glp/proto';

const iso = (d?: Date) => (d ? d.toISOString() : null);
const keys = (list: readonly string[]) => list.map((key) => ({ key }));

/**
 * GitLab's `Entities::ProjectHook` (`lib/api/entities/hook.rb` + `project_hook.rb`), fields in its order; ONE literal.
 * The token is never shown; url variables and custom headers only by key (`masked_url_variables`), and not at all in
 * the list (`with_url_variables: false, with_custom_headers: false`). The url's credentials are masked (house rule).
 */
export function projectHookEntity(h: hooksV1.Hook, opts: { withKeys: boolean } = { withKeys: true }) {
  const e = h.events ?? {};
  return {
    id: h.id,
    url: h.url,
    name: h.name,
    description: h.description,
    created_at: iso(h.createdAt),
    push_events: e.pushEvents ?? false,
    tag_push_events: e.tagPushEvents ?? false,
    merge_requests_events: e.mergeRequestsEvents ?? false,
    repository_update_events: e.repositoryUpdateEvents ?? false,
    enable_ssl_verification: h.enableSslVerification,
    alert_status: h.alertStatus || 'executable',
    disabled_until: iso(h.disabledUntil),
    url_variables: opts.withKeys ? keys(h.urlVariableKeys) : undefined,
    push_events_branch_filter: h.pushEventsBranchFilter || null,
    branch_filter_strategy: h.branchFilterStrategy || 'wildcard',
    custom_webhook_template: h.customWebhookTemplate || null,
    custom_headers: opts.withKeys ? keys(h.customHeaderKeys) : undefined,
    project_id: h.projectId,
    issues_events: e.issuesEvents ?? false,
    confidential_issues_events: e.confidentialIssuesEvents ?? false,
    note_events: e.noteEvents ?? false,
    confidential_note_events: e.confidentialNoteEvents ?? null,
    pipeline_events: e.pipelineEvents ?? false,
    wiki_page_events: e.wikiPageEvents ?? false,
    deployment_events: e.deploymentEvents ?? false,
    feature_flag_events: e.featureFlagEvents ?? false,
    job_events: e.jobEvents ?? false,
    releases_events: e.releasesEvents ?? false,
    milestone_events: e.milestoneEvents ?? false,
    emoji_events: e.emojiEvents ?? false,
    resource_access_token_events: e.resourceAccessTokenEvents ?? false,
    resource_deploy_token_events: e.resourceDeployTokenEvents ?? false,
    vulnerability_events: e.vulnerabilityEvents ?? false,
  };
}

function parseJson(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** GitLab's `Entities::WebHookLog` (`lib/api/entities/web_hook_log.rb`). */
export function webHookLogEntity(l: hooksV1.HookEvent) {
  return {
    id: l.id,
    url: l.url,
    trigger: l.trigger,
    request_headers: parseJson(l.requestHeadersJson),
    request_data: parseJson(l.requestDataJson),
    response_headers: parseJson(l.responseHeadersJson),
    response_body: l.responseBody,
    execution_duration: l.executionDuration,
    response_status: l.responseStatus,
    created_at: iso(l.createdAt),
  };
}
