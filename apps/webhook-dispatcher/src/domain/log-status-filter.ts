/**
 * The delivery log's `status` filter (GitLab 17+ `GET /projects/:id/hooks/:hook_id/events`, `WebHookLog` scopes):
 * HTTP codes, or `successful` (2xx), `client_failure` (4xx), `server_failure` (5xx and "internal error"). Several
 * values match any of them; none matches everything.
 */
export interface StatusFilter {
  codes: string[];
  prefixes: string[];
  internalError: boolean;
}

export function parseStatusFilter(statuses: string[]): StatusFilter | undefined {
  if (statuses.length === 0) return undefined;
  const filter: StatusFilter = { codes: [], prefixes: [], internalError: false };
  for (const s of statuses) {
    if (s === 'successful') filter.prefixes.push('2');
    else if (s === 'client_failure') filter.prefixes.push('4');
    else if (s === 'server_failure') {
      filter.prefixes.push('5');
      filter.internalError = true;
    } else if (/^\d{3}$/.test(s)) filter.codes.push(s);
  }
  return filter;
}

/** Whether a logged response_status passes (the store applies the same rule in SQL). */
export function statusMatches(filter: StatusFilter | undefined, status: string): boolean {
  if (!filter) return true;
  if (filter.codes.includes(status)) return true;
  if (filter.internalError && status === 'internal error') return true;
  return /^\d{3}$/.test(status) && filter.prefixes.includes(status[0]!);
}
