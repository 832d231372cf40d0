import { repoAdminV1 } from '@glp/proto';
import { bindService, type Logger } from '@glp/service-kit';
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { RepoAdminDeps } from '../app/deps';
import { repoAdminService } from './repo-admin-service';
import { unaryDefinition } from './server-stream';
import { snapshotStream } from './snapshot-stream';
import { uploadStreams } from './upload-streams';
import { backupStreams } from './backup-streams';

/**
 * RepoAdminService for the gRPC server: the unary methods through service-kit's `bindService`, each streaming method
 * bound on its own (GetSnapshot, the upload and avatar streams, the backup streams). Every method of the proto has a handler here: grpc-js
 * refuses to start a server missing one.
 */
export function repoAdminImplementation(deps: RepoAdminDeps, opts: { actorSecret: string; logger: Logger }): UntypedServiceImplementation {
  return {
    ...bindService(unaryDefinition(repoAdminV1.RepoAdminServiceService), repoAdminService(deps), opts),
    getSnapshot: snapshotStream(deps, opts) as UntypedServiceImplementation[string],
    ...(uploadStreams(deps, opts) as UntypedServiceImplementation),
    ...(backupStreams(deps, opts) as UntypedServiceImplementation),
  };
}
