import { defineParams } from '../http/params';
import { route, type RouteDef } from '../http/route';

/** What clients probe first: GET /version and GET /metadata (python-gitlab, gitbeaker, glab). */
export function metaRoutes(version: string, revision: string): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/version', access: 'user', scopes: ['read_user'], params: defineParams({}),
      handler: async () => ({ body: { version, revision } }),
    }),
    route({
      method: 'GET', path: '/metadata', access: 'user', scopes: ['read_user'], params: defineParams({}),
      handler: async () => ({
        body: { version, revision, kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null }, enterprise: false },
      }),
    }),
  ];
}
