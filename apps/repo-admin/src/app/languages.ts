import type { repoAdminV1 } from '@glp/proto';
import type { Actor } from '@glp/service-kit';
import { forEachTreeBlob, resolveCommit } from '../disk/repository-measure';
import { LanguageTally, type LanguageShare } from '../domain/language-rules';
import type { RepoAdminDeps } from './deps';
import { projectAsSeenBy } from './project-access';
import { projectRepository } from './project-repository';

/** Languages of a commit never change: the last ones computed, by commit id (a fork shares its source's). */
const byCommit = new Map<string, LanguageShare[]>();
const CACHED_COMMITS = 500;

/** The languages of a commit's tree (domain/language-rules.ts), walked as git lists it. */
export async function commitLanguages(deps: Pick<RepoAdminDeps, 'git'>, dir: string, commit: string): Promise<LanguageShare[]> {
  const cached = byCommit.get(commit);
  if (cached) return cached;
  const tally = new LanguageTally();
  await forEachTreeBlob(deps.git, dir, commit, (path, size) => tally.add(path, size));
  const shares = tally.shares();
  if (byCommit.size >= CACHED_COMMITS) byCommit.delete(byCommit.keys().next().value as string);
  byCommit.set(commit, shares);
  return shares;
}

/**
 * GET /projects/:id/languages (`lib/api/projects.rb`, `Projects::RepositoryLanguagesService`): whoever may read the
 * project (404 otherwise); the languages of the default branch (the branch HEAD points at), none for a repository that is
 * missing or empty (`Repository#languages`: `return [] if empty?`).
 */
export async function repositoryLanguages(
  deps: Pick<RepoAdminDeps, 'projects' | 'git' | 'storageRoot'>, actor: Actor, ref: repoAdminV1.ProjectRef | undefined,
): Promise<LanguageShare[]> {
  const project = await projectAsSeenBy(deps, actor, ref);
  const repo = projectRepository(deps, project.id);
  if (!repo.exists()) return [];
  const head = await repo.headBranch();
  const commit = head ? await resolveCommit(deps.git, repo.dir, `refs/heads/${head}`) : undefined;
  return commit ? commitLanguages(deps, repo.dir, commit) : [];
}
