/**
 * `prevent_secrets`: file names that likely hold secrets. Copied from GitLab's
 * `lib/gitlab/checks/files_blacklist.yml` (later moved to `ee/lib/gitlab/checks/files_denylist.yml`, loaded as
 * `PushRuleable::FILES_DENYLIST`); each is an RE2 pattern matched unanchored against the file's path.
 */
export const FILES_DENYLIST: readonly string[] = [
  // AWS CLI credential blobs
  'aws\\/credentials$',
  // RSA DSA ECSDA and ED25519 SSH keys
  '(ssh|config)\\/(personal|server)_(rsa|dsa|ed\\d+|ecdsa)',
  'id_rsa$',
  'id_dsa$',
  'id_ed25519$',
  'id_ecdsa$',
  // privatekey.pem and secret.key
  '\\.(pem|key)$',
  // files ending in .history or _history
  '[._]history$',
];
