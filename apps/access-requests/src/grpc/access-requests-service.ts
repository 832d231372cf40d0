import { accessRequestsV1 } from '@glp/proto';
import type { AsyncService } from '@glp/service-kit';
import { approve, deny, listRequests, requestAccess } from '../app/access-requests';
import type { AccessRequestsDeps } from '../app/deps';
import type { RequestRow } from '../store/requests-store';

function toProtoRequest(r: RequestRow): accessRequestsV1.AccessRequest {
  return accessRequestsV1.AccessRequest.fromPartial({
    userId: r.user_id, username: r.username, name: r.name, state: r.user_state, avatarUrl: r.avatar_url, requestedAt: r.requested_at,
  });
}

/** gRPC adapters: decode, call the use case (app/), encode. */
export function accessRequestsService(deps: AccessRequestsDeps): AsyncService<accessRequestsV1.AccessRequestsServiceServer> {
  return {
    async listAccessRequests(req, ctx) {
      const page = Math.max(1, req.page || 1);
      const perPage = Math.min(100, Math.max(1, req.perPage || 20));
      const { rows, total } = await listRequests(deps, ctx.actor, req.source, page, perPage);
      return { requests: rows.map(toProtoRequest), total };
    },
    async requestAccess(req, ctx) {
      return { request: toProtoRequest(await requestAccess(deps, ctx.actor, req.source)) };
    },
    async approveAccessRequest(req, ctx) {
      const m = await approve(deps, ctx.actor, req.source, req.userId, req.accessLevel);
      return {
        member: accessRequestsV1.ApprovedMember.fromPartial({
          userId: m.userId, username: m.username, name: m.name, state: m.state, avatarUrl: m.avatarUrl,
          accessLevel: m.accessLevel, createdAt: m.createdAt, expiresAt: m.expiresAt,
        }),
      };
    },
    async denyAccessRequest(req, ctx) {
      await deny(deps, ctx.actor, req.source, req.userId);
      return {};
    },
  };
}
