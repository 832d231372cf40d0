import { repoAdminV1 } from '@glp/proto';
import type { Logger } from '@glp/service-kit';
import { openSnapshot } from '../app/snapshot';
import type { RepoAdminDeps } from '../app/deps';
import { bindServerStream } from './server-stream';

/** Bytes per GetSnapshotResponse (well below gRPC's 4 MiB message limit; small tar pieces are gathered up to it). */
const CHUNK_BYTES = 256 * 1024;

/**
 * GetSnapshot: the tar of `openSnapshot`, in messages of up to CHUNK_BYTES, read from disk only as fast as the client
 * takes it. A cancelled call (the HTTP client went away) stops the walk and closes the open file.
 */
export function snapshotStream(deps: RepoAdminDeps, opts: { actorSecret: string; logger: Logger }) {
  return bindServerStream<repoAdminV1.GetSnapshotRequest, repoAdminV1.GetSnapshotResponse>(
    repoAdminV1.RepoAdminServiceService.getSnapshot.path,
    async (req, ctx) => {
      const tar = await openSnapshot(deps, ctx.actor, req.project, req.wiki);
      if (!tar) return;
      ctx.onCancel(() => tar.destroy());
      try {
        let pending: Buffer[] = [];
        let size = 0;
        for await (const chunk of tar as AsyncIterable<Buffer>) {
          pending.push(chunk);
          size += chunk.length;
          if (size >= CHUNK_BYTES) {
            await ctx.write({ data: pending.length === 1 ? pending[0]! : Buffer.concat(pending, size) });
            pending = [];
            size = 0;
          }
        }
        if (size > 0) await ctx.write({ data: Buffer.concat(pending, size) });
      } finally {
        tar.destroy();
      }
    },
    opts,
  );
}
