/** Scopes accepted by POST /users/:user_id/personal_access_tokens (Gitlab::Auth.all_available_scopes). */
export const TOKEN_SCOPE_VALUES = [
  'api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy', 'self_rotate', 'read_repository',
  'write_repository', 'read_registry', 'write_registry', 'read_virtual_registry', 'write_virtual_registry',
  'read_service_ping', 'sudo', 'admin_mode', 'ai_features',
] as const;
