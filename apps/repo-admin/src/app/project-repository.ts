import path from 'node:path';
import { BareRepository } from '../disk/bare-repository';
import { hashedDiskPath, hashedWikiPath } from '../domain/hashed-storage';
import type { RepoAdminDeps } from './deps';

/**
 * A project's bare repository (or its wiki's, `<hash>.wiki.git`) on this replica's storage. The path comes from the
 * project id alone (hashed layout): nothing a client sends can lead outside the storage root.
 */
export const projectRepository = (deps: Pick<RepoAdminDeps, 'git' | 'storageRoot'>, projectId: number, wiki = false) =>
  new BareRepository(deps.git, path.join(deps.storageRoot, wiki ? hashedWikiPath(projectId) : hashedDiskPath(projectId)));
