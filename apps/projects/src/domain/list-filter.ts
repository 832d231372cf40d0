import type { Actor } from '@glp/service-kit';
import type { VisibilityLevel } from './visibility';

export type OrderBy = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | 'star_count';
export const ORDER_BY: readonly OrderBy[] = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'];

export type SearchFilter = { kind: 'exact'; value: string } | { kind: 'terms'; patterns: string[] };

export interface ListFilter {
  callerId: number;
  /** all: admin; signed_in: public + internal + own; external: public + own (GitLab's external users); public: anonymous. */
  readScope: 'all' | 'signed_in' | 'external' | 'public';
  /** The caller's effective levels in group namespaces (from identity): projects there count as the caller's. */
  groupAccess: { namespaceId: number; level: number }[];
  owned: boolean;
  membership: boolean;
  /** Only projects directly in this namespace. */
  namespaceId?: number;
  minAccessLevel?: number;
  visibility?: VisibilityLevel;
  archived?: boolean;
  idAfter?: number;
  idBefore?: number;
  topics: string[];
  search?: SearchFilter;
  orderBy: OrderBy;
  sort: 'asc' | 'desc';
  page: number;
  perPage: number;
  /** 0: do not count. */
  countLimit: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * GitLab's search (Gitlab::SQL::Pattern): terms split on spaces, quoted phrases kept; terms of
 * 3+ characters are substring matches that must all match; with no such term, an exact match.
 */
export function parseSearch(search: string): SearchFilter | undefined {
  const s = search.trim();
  if (!s) return undefined;
  const terms = [...s.matchAll(/"([^"]+)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '').filter((t) => t.length >= 3);
  if (terms.length === 0) return { kind: 'exact', value: s };
  return { kind: 'terms', patterns: terms.map((t) => `%${escapeLike(t)}%`) };
}

export function readScopeOf(actor: Actor): ListFilter['readScope'] {
  if (actor.admin) return 'all';
  if (actor.kind !== 'user') return 'public';
  return actor.external ? 'external' : 'signed_in';
}

/** Non-admins asking for an admin-only ordering get the default, as in GitLab. */
export function resolveOrderBy(orderBy: string): OrderBy {
  return (ORDER_BY as readonly string[]).includes(orderBy) ? (orderBy as OrderBy) : 'created_at';
}
