import { isUniqueViolation, withTransaction } from '@glp/db';
import type { projectsV1 } from '@glp/proto';
import { invalid, unauthenticated, type Actor, type FieldErrors } from '@glp/service-kit';
import { buildNewProject } from '../domain/new-project';
import { avatarErrors, withAvatarErrors } from '../domain/avatar-rules';
import { initialOwnerOf } from '../domain/project-limit-rules';
import { storageFor } from '../domain/storage-rules';
import { ACCESS } from '../domain/visibility';
import { recordProjectCreated } from '../events/project-events';
import { scheduleImport } from '../store/forks-store';
import { insertProjectEvents } from '../store/project-events-store';
import { findProjectById, insertMember, insertProject, takenInNamespace } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import { visibilityFromProto } from '../grpc/mappers';
import { resolveTargetNamespace } from './namespace-resolver';
import { checkPersonalProjectLimit } from './project-limit';
import type { ProjectsDeps } from './deps';
import { storeImportSource, vetImport } from './import-source';
import { namespacesAs, projectCreator } from './project-creator';

function takenErrors(taken: { name: boolean; path: boolean }): FieldErrors | undefined {
  const errors: FieldErrors = {};
  if (taken.name) errors.name = ['has already been taken'];
  if (taken.path) errors.path = ['has already been taken'];
  return Object.keys(errors).length ? errors : undefined;
}

/**
 * Creates a project in one transaction: the row, the Owner membership of the personal namespace's owner (none in a
 * group: access comes from the group) and ProjectCreated in the outbox; a personal project needs the creator to have
 * projects left (projects_limit). Name/path clashes are reported like GitLab's validations.
 * With `user_id` (administrators) the project is created as that user (`projectCreator`).
 */
export async function createProject(deps: ProjectsDeps, caller: Actor, req: projectsV1.CreateProjectRequest): Promise<ProjectRow> {
  const { pool, identity, topic } = deps;
  if (caller.kind !== 'user') throw unauthenticated();
  const actor = await projectCreator(identity, caller, req.userId);
  // An avatar sent along is validated with the attributes (Avatarable); its bytes are stored once the project exists.
  const project = withAvatarErrors(req.avatar ? avatarErrors(req.avatar) : [], () => buildNewProject({
    name: req.name,
    path: req.path,
    description: req.description,
    visibility: visibilityFromProto(req.visibility),
    defaultBranch: req.defaultBranch,
    topics: req.topics,
    settings: req.settings,
  }));
  const ns = await resolveTargetNamespace(pool, namespacesAs(identity, actor), actor, req.namespaceId);
  const imported = req.importUrl !== undefined ? await vetImport(deps, req.importUrl, req.mirror) : undefined;
  // A mirror's user defaults to its creator (GitLab sets mirror_user_id to the current user).
  if (imported?.mirror.mirror && imported.mirror.mirrorUserId === null) imported.mirror.mirrorUserId = actor.id;
  await checkPersonalProjectLimit({ pool, identity }, actor, ns);
  const owner = initialOwnerOf(ns);
  const storage = storageFor(req.repositoryStorage, caller.admin, deps.repositoryStorages ?? ['default']);
  try {
    return await withTransaction(pool, async (client) => {
      const clash = takenErrors(await takenInNamespace(client, ns.id, project.name, project.path));
      if (clash) throw invalid(clash);
      const id = await insertProject(client, { ...project, namespaceId: ns.id, creatorId: actor.id, repositoryStorage: storage });
      if (owner !== undefined) await insertMember(client, { projectId: id, userId: owner, accessLevel: ACCESS.OWNER, createdBy: actor.id });
      await insertProjectEvents(client, id, 'created', [actor.id]);
      if (imported) {
        await storeImportSource(deps, client, id, imported);
        await scheduleImport(client, id);
      }
      const row = (await findProjectById(client, id, actor.id))!;
      await recordProjectCreated(client, topic, {
        id, name: row.name, path: row.path, fullPath: `${row.ns_full_path}/${row.path}`, namespaceId: ns.id,
        creatorId: actor.id, visibility: row.visibility, createdAt: row.created_at,
        defaultBranch: row.default_branch, initializeWithReadme: req.initializeWithReadme && !imported, importSource: imported !== undefined,
        repositoryStorage: row.repository_storage,
      }, actor);
      return row;
    });
  } catch (err) {
    // A concurrent create won the race: the unique index speaks.
    if (isUniqueViolation(err, 'projects_namespace_path_key')) throw invalid({ path: ['has already been taken'] });
    if (isUniqueViolation(err, 'projects_namespace_name_key')) throw invalid({ name: ['has already been taken'] });
    throw err;
  }
}
