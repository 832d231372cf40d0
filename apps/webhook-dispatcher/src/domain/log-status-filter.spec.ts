import { parseStatusFilter, statusMatches } from './log-status-filter';

describe('delivery log status filter', () => {
  it('matches codes and GitLab categories', () => {
    const server = parseStatusFilter(['server_failure']);
    expect(['500', '503', 'internal error'].every((s) => statusMatches(server, s))).toBe(true);
    expect(statusMatches(server, '404')).toBe(false);
    const mixed = parseStatusFilter(['successful', '404']);
    expect(['200', '204', '404'].every((s) => statusMatches(mixed, s))).toBe(true);
    expect(statusMatches(mixed, '500')).toBe(false);
    expect(statusMatches(parseStatusFilter(['client_failure']), '422')).toBe(true);
    expect(statusMatches(parseStatusFilter([]), 'anything')).toBe(true);
  });
});
