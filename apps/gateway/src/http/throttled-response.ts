/**
 * GitLab's throttled response (lib/gitlab/rack_attack.rb `configure` → `throttled_response` and
 * `throttled_response_headers`; lib/gitlab/throttle.rb `rate_limiting_response_text`): 429, text/plain "Retry later\n".
 */
export const THROTTLED_BODY = 'Retry later\n';

export interface ThrottleMatch {
  /** Requests allowed per period. */
  limit: number;
  /** Window length in seconds (windows are aligned to the Unix epoch, as Rack::Attack's are). */
  period: number;
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Now, in whole Unix seconds. */
  epochTime: number;
}

/** The headers GitLab sends with a 429 from a Rack::Attack throttle, computed exactly as `throttled_response_headers` does. */
export function throttledResponseHeaders(name: string, m: ThrottleMatch): Record<string, string> {
  const roundedLimit = Math.ceil((m.limit * 60) / m.period);
  const retryAfter = m.period - (m.epochTime % m.period);
  const reset = m.epochTime + retryAfter;
  return {
    'RateLimit-Name': name,
    'RateLimit-Limit': String(roundedLimit),
    'RateLimit-Observed': String(m.count),
    'RateLimit-Remaining': String(m.limit > m.count ? m.limit - m.count : 0),
    'RateLimit-Reset': String(reset),
    'RateLimit-ResetTime': new Date(reset * 1000).toUTCString(),
    'Retry-After': String(retryAfter),
  };
}
