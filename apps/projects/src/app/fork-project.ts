import { isForeignKeyViolation, isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { conflict, forbidden, invalid, notFound, notModified, rejected, unauthenticated, type Actor } from '@glp/service-kit';
import { canRemoveProject } from '../domain/deletion-rules';
import { canForkProject, forkSettings, forkVisibility, LINK_FAILURES } from '../domain/fork-rules';
import { buildNewProject } from '../domain/new-project';
import { initialOwnerOf } from '../domain/project-limit-rules';
import { effectiveSettings } from '../domain/project-settings';
import { ACCESS, type VisibilityLevel } from '../domain/visibility';
import { recordProjectCreated, recordProjectForked, recordProjectForksRemoved } from '../events/project-events';
import { visibilityFromProto } from '../grpc/mappers';
import { deleteForkRelation, insertForkRelation, scheduleImport } from '../store/forks-store';
import type { NamespaceReplica } from '../store/namespace-replica-store';
import { insertProjectEvents } from '../store/project-events-store';
import { insertMember, insertProject, takenInNamespace } from '../store/projects-store';
import type { ProjectsDeps } from './deps';
import { mayCreateIn, resolveTargetNamespace, visibleNamespace } from './namespace-resolver';
import { checkPersonalProjectLimit } from './project-limit';
import { readableProject, type ReadableProject } from './read-project';
import { groupVisibility } from './update-project';

const fullPath = (p: ReadableProject) => `${p.row.ns_full_path}/${p.row.path}`;

/** GitLab's `fork_project` on a readable project: the feature levels as they are in effect (defaults included). */
function mayFork(actor: Actor, p: ReadableProject): boolean {
  return canForkProject(actor, { visibility: p.row.visibility, settings: effectiveSettings(p.row.settings, p.row.visibility), access: p.access });
}

/**
 * Where a fork goes (`lib/api/projects.rb` `post ':id/fork'`): a namespace named by id or path must be visible to the
 * caller (404 Namespace Not Found) and one they may create projects in (404 Target Namespace Not Found); none named is
 * the caller's personal namespace.
 */
async function forkTarget(deps: ProjectsDeps, actor: Actor, choice: projectsV1.ForkProjectRequest['namespace']): Promise<{ ns: NamespaceReplica; visibility: VisibilityLevel }> {
  let ns: NamespaceReplica;
  if (choice) {
    const seen = await visibleNamespace(deps, choice);
    if (!mayCreateIn(actor, seen.ns, seen.callerAccess)) throw notFound('Target Namespace');
    ns = seen.ns;
  } else {
    ns = await resolveTargetNamespace(deps.pool, deps.identity, actor, 0);
  }
  // A personal namespace is public (GitLab: Namespace#visibility_level for users); a group has its own.
  return { ns, visibility: ns.kind === 'group' ? await groupVisibility(deps.identity, ns.id) : 'public' };
}

/**
 * POST /projects/:id/fork (`Projects::ForkService`): a new project in the target namespace with the source's name, path,
 * description, default branch and feature settings unless given, the lowest of the visibilities, the namespace owner
 * as Owner in a personal namespace (a group gives access through itself), import_status "scheduled"; its fork relation; ProjectCreated and ProjectForked (repo-admin copies the repository and
 * reports back with RepositoryImportStateChanged) in the same transaction. Answers at once.
 */
export async function forkProject(deps: ProjectsDeps, actor: Actor, req: projectsV1.ForkProjectRequest): Promise<ReadableProject> {
  if (actor.kind !== 'user') throw unauthenticated();
  const source = await readableProject(deps, actor, req.project?.selector);
  if (!mayFork(actor, source)) throw notFound();
  const target = await forkTarget(deps, actor, req.namespace);
  await checkPersonalProjectLimit(deps, actor, target.ns);
  const owner = initialOwnerOf(target.ns);
  const src = source.row;
  const fork = buildNewProject({
    name: req.name ?? src.name,
    path: req.path ?? src.path,
    description: req.description ?? src.description ?? undefined,
    visibility: forkVisibility(src.visibility, target.visibility, visibilityFromProto(req.visibility)),
    defaultBranch: src.default_branch ?? undefined,
    topics: [],
    settings: forkSettings(src.settings, req.mrDefaultTargetSelf),
  });
  let id = 0;
  try {
    id = await withTransaction(deps.pool, async (client) => {
      const taken = await takenInNamespace(client, target.ns.id, fork.name, fork.path);
      if (taken.name || taken.path) {
        throw invalid({ ...(taken.name ? { name: ['has already been taken'] } : {}), ...(taken.path ? { path: ['has already been taken'] } : {}) });
      }
      // The copy is local to a storage: the fork lives where its source does.
      const forkId = await insertProject(client, { ...fork, namespaceId: target.ns.id, creatorId: actor.id, repositoryStorage: src.repository_storage });
      if (owner !== undefined) await insertMember(client, { projectId: forkId, userId: owner, accessLevel: ACCESS.OWNER, createdBy: actor.id });
      await insertProjectEvents(client, forkId, 'created', [actor.id]);
      await scheduleImport(client, forkId);
      await insertForkRelation(client, forkId, src.id);
      const forkPath = `${target.ns.full_path}/${fork.path}`;
      await recordProjectCreated(client, deps.topic, {
        id: forkId, name: fork.name, path: fork.path, fullPath: forkPath, namespaceId: target.ns.id, creatorId: actor.id,
        visibility: fork.visibility, createdAt: new Date(), defaultBranch: fork.defaultBranch, repositoryStorage: src.repository_storage,
      }, actor);
      await recordProjectForked(client, deps.topic, {
        projectId: forkId, forkedFromProjectId: src.id, pathWithNamespace: forkPath, forkedFromPathWithNamespace: fullPath(source),
        copyRepository: true, branches: req.branches, repositoryStorage: src.repository_storage,
      }, actor);
      return forkId;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'projects_namespace_path_key')) throw invalid({ path: ['has already been taken'] });
    if (isUniqueViolation(err, 'projects_namespace_name_key')) throw invalid({ name: ['has already been taken'] });
    throw err;
  }
  return readableProject(deps, actor, { $case: 'id', value: id });
}

/**
 * POST /projects/:id/fork/:forked_from_id (`link_forked_project`, then `ForkService#execute(fork_to_project)`): Owners
 * (administrators) of the project (403) mark it as a fork of a project they can read (404) and may fork (403), provided
 * they may create projects in the project's namespace (401 Target Namespace); a fork already is 409, itself 400.
 */
export async function linkFork(deps: ProjectsDeps, actor: Actor, req: projectsV1.LinkForkRequest): Promise<ReadableProject> {
  const project = await readableProject(deps, actor, req.project?.selector);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  // `:forked_from_id` is not the route's `:id`: an old path follows its redirect (GitLab's `find_project!` only moves `:id`).
  const source = await readableProject(deps, actor, req.forkedFrom?.selector, { followRedirects: true });
  if (!mayFork(actor, source)) throw forbidden();
  if (!mayCreateIn(actor, { kind: project.row.ns_kind, owner_id: project.row.ns_owner_id }, project.facts.groupAccess)) throw unauthenticated('Target Namespace');
  if (source.row.id === project.row.id) throw rejected(LINK_FAILURES.sameProject);
  if (project.row.fork_source) throw conflict(LINK_FAILURES.alreadyForked);
  await withTransaction(deps.pool, async (client) => {
    if (!(await insertForkRelation(client, project.row.id, source.row.id))) throw conflict(LINK_FAILURES.alreadyForked);
    await recordProjectForked(client, deps.topic, {
      projectId: project.row.id, forkedFromProjectId: source.row.id, pathWithNamespace: fullPath(project),
      forkedFromPathWithNamespace: fullPath(source), copyRepository: false, branches: '', repositoryStorage: project.row.repository_storage,
    }, actor);
  }).catch((err: unknown) => {
    // One of the two was deleted since it was read (a concurrent DELETE): gone, not a server error.
    if (isForeignKeyViolation(err)) throw notFound('Project');
    throw err;
  });
  return readableProject(deps, actor, { $case: 'id', value: project.row.id });
}

/** DELETE /projects/:id/fork (`remove_fork_project`: Owners, administrators): the relation goes; not a fork is 304. */
export async function unlinkFork(deps: ProjectsDeps, actor: Actor, req: projectsV1.UnlinkForkRequest): Promise<void> {
  const project = await readableProject(deps, actor, req.project?.selector);
  if (!canRemoveProject(actor, project.access)) throw forbidden();
  await withTransaction(deps.pool, async (client) => {
    const sourceId = await deleteForkRelation(client, project.row.id);
    if (sourceId === undefined) throw notModified();
    await recordProjectForksRemoved(client, deps.topic, [{ project_id: project.row.id, forked_from_project_id: sourceId }], actor);
  });
}
