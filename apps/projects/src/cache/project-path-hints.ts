import { LRUCache } from 'lru-cache';

/**
 * Which project a `namespace/path` named when it was last found: a hint, never an answer. A batch of reads by path
 * (GetProjects) reads a hinted project's row by its id with the by-id reads and keeps it only when the row's own full
 * path is still the one asked for (the comparison GetProject makes to tell a current path from an old one); otherwise
 * the hint is dropped and the path is looked up. A project renamed, moved or deleted, or a path taken by another project,
 * costs the look-up it would have cost anyway, and a stale hint is never served. Keyed by the path lowercased: project
 * and namespace paths are ASCII (GitLab's path rules), where JavaScript's and PostgreSQL's lower() agree; any other
 * string only misses or fails the check.
 */
export class ProjectPathHints {
  private readonly ids: LRUCache<string, number> | undefined;

  /** `max` paths kept, least recently used first out; 0 keeps none. */
  constructor(max: number) {
    this.ids = max > 0 ? new LRUCache<string, number>({ max }) : undefined;
  }

  get(fullPath: string): number | undefined {
    return this.ids?.get(fullPath.toLowerCase());
  }

  set(fullPath: string, projectId: number): void {
    this.ids?.set(fullPath.toLowerCase(), projectId);
  }

  forget(fullPath: string): void {
    this.ids?.delete(fullPath.toLowerCase());
  }
}
