import type { RouteDef } from '../http/route';
import { accessRequestRoutes } from './access-request-routes';
import { applicationSettingsRoutes } from './application-settings-routes';
import { groupMemberRoutes } from './group-member-routes';
import { groupRoutes } from './group-routes';
import { metaRoutes } from './meta-routes';
import { namespaceRoutes } from './namespace-routes';
import { projectCustomAttributeRoutes } from './project-custom-attribute-routes';
import { projectDeletionRoutes } from './project-deletion-routes';
import { projectEventRoutes } from './project-event-routes';
import { projectForkRoutes } from './project-fork-routes';
import { projectHookRoutes } from './project-hook-routes';
import { projectMirrorRoutes } from './project-mirror-routes';
import { projectTransferRoutes } from './project-transfer-routes';
import { pushRuleRoutes } from './push-rule-routes';
import { projectEditRoutes } from './project-edit-routes';
import { projectLifecycleRoutes } from './project-lifecycle-routes';
import { projectMemberRoutes } from './project-member-routes';
import { projectRoutes } from './project-routes';
import { projectSharingRoutes } from './project-sharing-routes';
import { repositoryAdminRoutes } from './repository-admin-routes';
import { tokenRoutes } from './token-routes';
import { uploadRoutes } from './upload-routes';
import { userRoutes } from './user-routes';
import { userProjectRoutes } from './user-project-routes';

/**
 * Every /api/v4 route, in registration order. The one list app.ts mounts and the route fuzzer
 * (test/e2e/route-fuzz.test.ts) reads, so a route added here is served and fuzzed.
 */
export function apiRoutes(version: string, revision: string): RouteDef[] {
  return [
    ...metaRoutes(version, revision), ...userRoutes, ...projectRoutes, ...projectEditRoutes, ...projectMemberRoutes, ...projectDeletionRoutes, ...projectTransferRoutes, ...projectSharingRoutes, ...projectLifecycleRoutes, ...projectEventRoutes, ...projectForkRoutes, ...projectMirrorRoutes, ...groupRoutes, ...groupMemberRoutes,
    ...namespaceRoutes, ...accessRequestRoutes, ...tokenRoutes,
    ...userProjectRoutes,
    ...projectCustomAttributeRoutes,
    ...repositoryAdminRoutes,
    ...uploadRoutes,
    ...applicationSettingsRoutes,
    ...projectHookRoutes,
    ...pushRuleRoutes,
  ];
}
