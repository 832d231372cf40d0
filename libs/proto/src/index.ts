// Re-exports of the code generated from proto/ by `buf generate` (see proto/buf.gen.yaml).
export * as accessRequestsV1 from './gen/gitlab/access_requests/v1/access_requests';
export * as accessRequestEventsV1 from './gen/gitlab/events/v1/access_request_events';
export * as eventsV1 from './gen/gitlab/events/v1/envelope';
export * as hookEventsV1 from './gen/gitlab/events/v1/hook_events';
export * as identityEventsV1 from './gen/gitlab/events/v1/identity_events';
export * as projectEventsV1 from './gen/gitlab/events/v1/project_events';
export * as repositoryEventsV1 from './gen/gitlab/events/v1/repository_events';
export * as hooksV1 from './gen/gitlab/hooks/v1/hooks';
export * as identityV1 from './gen/gitlab/identity/v1/identity';
export * as projectsV1 from './gen/gitlab/projects/v1/projects';
export * as pushRulesV1 from './gen/gitlab/push_rules/v1/push_rules';
export * as repoAdminV1 from './gen/gitlab/repo_admin/v1/repo_admin';
export * as webhookDispatcherV1 from './gen/gitlab/webhook_dispatcher/v1/webhook_dispatcher';
export { Any } from './gen/google/protobuf/any';
export { Timestamp } from './gen/google/protobuf/timestamp';
// The wire reader and writer the generated code uses, for callers that read a message's fields without decoding all of it
// or write one from fields encoded before.
export { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
