import type { ServiceDefinition } from '@grpc/grpc-js';
import { projectsV1 } from '@glp/proto';
import { bindService, createGrpcClient, createLogger, startGrpcServer } from '@glp/service-kit';
import type { projectsService } from '../../src/grpc/projects-service';

export type ProjectsGrpcClient = ReturnType<typeof createGrpcClient<projectsV1.ProjectsServiceClient>>;

/**
 * The projects service behind a real gRPC server on a free local port (callers' actors signed with `actorSecret`), and
 * a client of it; `definition` as main.ts serves it when given (e.g. ListProjects through the encoding cache).
 */
export async function startProjectsGrpc(
  service: ReturnType<typeof projectsService>,
  opts: { actorSecret: string; definition?: ServiceDefinition },
): Promise<{ client: ProjectsGrpcClient; stop(): Promise<void> }> {
  const logger = createLogger('projects-test', 'silent');
  const definition = opts.definition ?? projectsV1.ProjectsServiceService;
  const server = await startGrpcServer({
    port: 0, host: '127.0.0.1', logger, maxConnectionAgeMs: 0,
    services: [{
      name: 'gitlab.projects.v1.ProjectsService',
      definition,
      implementation: bindService(definition, service, { actorSecret: opts.actorSecret, logger }),
    }],
  });
  const client = createGrpcClient(projectsV1.ProjectsServiceClient, `127.0.0.1:${server.port}`, { actorSecret: opts.actorSecret });
  return {
    client,
    stop: async () => {
      client.close();
      await server.stop(1000);
    },
  };
}
