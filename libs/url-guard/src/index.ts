// GitLab's outbound URL rules (Gitlab::UrlBlocker): which URLs a service may reach on a user's behalf (repository
// imports and mirrors today, webhooks next), checked when the URL is saved and again, resolved and pinned, when used.
export * from './url-blocker';
export * from './resolve';
export * from './webhook-rules';
export * from './attack-matrix';
export * from './credentials';
