import { isUniqueViolation, withTransaction, type Pool } from '@glp/db';
import type { identityV1, projectsV1 } from '@glp/proto';
import { invalid, unauthenticated, type Actor, type FieldErrors, type PromiseClient } from '@glp/service-kit';
import { buildNewProject } from '../domain/new-project';
import { initialOwnerOf } from '../domain/project-limit-rules';
import { ACCESS } from '../domain/visibility';
import { recordProjectCreated } from '../events/project-events';
import { findProjectById, insertMember, insertProject, takenInNamespace } from '../store/projects-store';
import type { ProjectRow } from '../store/project-rows';
import { visibilityFromProto } from '../grpc/mappers';
import { resolveTargetNamespace } from './namespace-resolver';
import { checkPersonalProjectLimit } from './project-limit';
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
export async function createProject(
  pool: Pool,
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getNamespace' | 'getUser'>,
  topic: string,
  caller: Actor,
  req: projectsV1.CreateProjectRequest,
): Promise<ProjectRow> {
  if (caller.kind !== 'user') throw unauthenticated();
  const actor = await projectCreator(identity, caller, req.userId);
  const project = buildNewProject({
    name: req.name,
    path: req.path,
    description: req.description,
    visibility: visibilityFromProto(req.visibility),
    defaultBranch: req.defaultBranch,
    topics: req.topics,
    settings: req.settings,
  });
  const ns = await resolveTargetNamespace(pool, namespacesAs(identity, actor), actor, req.namespaceId);
  await checkPersonalProjectLimit({ pool, identity }, actor, ns);
  const owner = initialOwnerOf(ns);
  try {
    return await withTransaction(pool, async (client) => {
      const clash = takenErrors(await takenInNamespace(client, ns.id, project.name, project.path));
      if (clash) throw invalid(clash);
      const id = await insertProject(client, { ...project, namespaceId: ns.id, creatorId: actor.id });
      if (owner !== undefined) await insertMember(client, { projectId: id, userId: owner, accessLevel: ACCESS.OWNER, createdBy: actor.id });
      const row = (await findProjectById(client, id, actor.id))!;
      await recordProjectCreated(client, topic, {
        id, name: row.name, path: row.path, fullPath: `${row.ns_full_path}/${row.path}`, namespaceId: ns.id,
        creatorId: actor.id, visibility: row.visibility, createdAt: row.created_at,
        defaultBranch: row.default_branch, initializeWithReadme: req.initializeWithReadme,
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
