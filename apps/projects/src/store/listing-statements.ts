import type { QueryConfig } from '@glp/db';

/**
 * A listing's statements as prepared statements: each distinct text gets a name the first time it is seen, so that
 * every pooled connection parses and analyses it once and then only binds and plans it.
 *
 * A listing's SQL is built from its filters and ordering (never from values, which are bound), so a process sees a
 * few dozen texts. Unnamed, every listing paid PostgreSQL's parse and analysis again: at 100,000 projects the offset
 * listing's one statement (page ids, count bound, versions) cost 1.13-1.21 ms of PostgreSQL unnamed against 0.85-0.87
 * ms named, in a loop on one connection (bench/README.md, "Listings planned once").
 *
 * The plans stay custom: PostgreSQL keeps a prepared statement's generic plan only while it does not look costlier
 * than the custom ones, and a page's `LIMIT $n OFFSET $m` makes the generic plan's estimate a tenth of the matching
 * rows, far above any page's (`pg_prepared_statements`: 50 custom plans of 50 for the offset listing's statement with
 * three visibilities and seven pages). So a skewed value (a namespace holding half the projects) is still planned for
 * what it is.
 *
 * Texts past LISTING_STATEMENTS_MAX run unnamed: every name stays prepared on every connection for the connection's
 * life (node-pg does not deallocate), and a search's text grows with its number of terms.
 */
const LISTING_STATEMENTS_MAX = 200;

const names = new Map<string, string>();

export function listingStatement(text: string, values: unknown[]): QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < LISTING_STATEMENTS_MAX) {
    name = `listing_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
