/**
 * The shared authentication cache (Redis) between the gateway, which fills it, and identity, which empties it when a
 * token is revoked or rotated or its user is blocked, deleted or loses rights. Entries are keyed by the hex SHA-256 of
 * the token (never the token).
 */
export function authCacheKey(tokenDigestHex: string): string {
  return `glp:auth:${tokenDigestHex}`;
}

/**
 * A token's generation: identity increments it in the same MULTI that deletes the token's entry, after the change
 * commits. A gateway reads it with the entry before asking identity, and writes identity's answer back only if it is
 * unchanged (AUTH_CACHE_WRITE_SCRIPT, atomically), so an answer identity gave before a revocation committed is never
 * written back after the revocation emptied the cache.
 */
export function authGenerationKey(tokenDigestHex: string): string {
  return `glp:auth:gen:${tokenDigestHex}`;
}

/** How long a generation outlives its last change: far longer than any look-up (bounded by the gRPC deadline) lasts. */
export const AUTH_GENERATION_TTL_SECONDS = 3600;

/**
 * KEYS[1] the entry, KEYS[2] its generation; ARGV[1] the value, ARGV[2] its TTL in seconds, ARGV[3] the generation read
 * before the look-up ('' for none). Writes the entry only if the generation is still that one: 1 written, 0 not.
 */
export const AUTH_CACHE_WRITE_SCRIPT = `
local generation = redis.call('GET', KEYS[2]) or ''
if generation ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1
`;

/**
 * The channel identity publishes invalidated token digests on (a JSON array of hex digests), right after deleting their
 * entries, so every gateway drops them from its in-process cache at once.
 */
export const AUTH_INVALIDATION_CHANNEL = 'glp:auth:invalidate';
