/**
 * The shared authentication cache (Redis) between the gateway, which fills it, and identity, which empties it when a
 * token is revoked or rotated or its user is blocked, deleted or loses rights. Entries are keyed by the hex SHA-256 of
 * the token (never the token).
 */
export function authCacheKey(tokenDigestHex: string): string {
  return `glp:auth:${tokenDigestHex}`;
}

/**
 * The channel identity publishes invalidated token digests on (a JSON array of hex digests), right after deleting their
 * entries, so every gateway drops them from its in-process cache at once.
 */
export const AUTH_INVALIDATION_CHANNEL = 'glp:auth:invalidate';
