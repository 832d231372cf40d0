import type { Actor } from '@glp/service-kit';

/**
 * Who may star and what a starrer search means (GitLab's `POST /projects/:id/star`, `UsersStarProjectsFinder` and
 * `User.search`). Pure: no I/O.
 */

/** Starring acts for the caller: only a signed-in user has stars (a system or anonymous caller has none). */
export function canStar(actor: Actor): boolean {
  return actor.kind === 'user';
}

/**
 * A starrer search as GitLab's `User.search(query, use_minimum_char_limit: false)` runs it:
 * - `none`: nothing matches (the search was only "@", which GitLab strips before finding the query blank);
 * - `match`: every term (split on spaces, "quoted phrases" kept, no minimum length) is a substring of the name, or
 *   every term is a substring of the username (case-insensitive, LIKE wildcards taken literally); `exact` is the
 *   whole lower-cased query, which ranks exact usernames first, then exact names (then by name, then by user id).
 */
export type StarrerSearch = { kind: 'none' } | { kind: 'match'; exact: string; patterns: string[] };

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** GitLab's `Gitlab::SQL::Pattern.split_query_to_search_terms`: quoted phrases, then the remaining words. */
export function searchTerms(query: string): string[] {
  const quoted: string[] = [];
  const rest = query.replace(/"(.*?)"/g, (_, phrase: string) => {
    quoted.push(phrase);
    return '';
  });
  return [...rest.split(/\s+/).filter(Boolean), ...quoted.filter(Boolean)];
}

/** The `search` param of GET /projects/:id/starrers; undefined when absent or blank (no filter, as `present?`). */
export function parseStarrerSearch(search: string): StarrerSearch | undefined {
  if (search.trim() === '') return undefined;
  const query = search.replace(/^@/, '').toLowerCase();
  if (query.trim() === '') return { kind: 'none' };
  const squished = query.trim().replace(/\s+/g, ' ');
  const terms = searchTerms(squished);
  // Only quotes (`""`): GitLab matches the whole query literally.
  const patterns = terms.length ? terms.map((t) => `%${escapeLike(t)}%`) : [escapeLike(squished)];
  return { kind: 'match', exact: query, patterns };
}
