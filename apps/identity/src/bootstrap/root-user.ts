import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { withTransaction, type Pool } from '@glp/db';
import { systemActor, type Logger } from '@glp/service-kit';
import { hashPassword, randomPassword } from '../domain/password';
import { DEFAULT_PROJECTS_LIMIT } from '../domain/user-rules';
import { generateTokenSecret, tokenDigest } from '../domain/tokens';
import { recordNamespaceChanged, recordUserCreated } from '../events/identity-events';
import { insertPersonalNamespace } from '../store/namespaces-store';
import { countTokensOfUser, insertTokenIfAbsent } from '../store/tokens-store';
import { findUserByUsername, insertUser, setUserNamespace } from '../store/users-store';

export const ROOT_TOKEN_FILE = 'root-token';
const ROOT_TOKEN_SCOPES = ['api', 'read_user', 'read_api', 'read_repository', 'write_repository', 'sudo', 'admin_mode'];

/**
 * On first start: the administrator `root` with its personal namespace. Its token is
 * GITLAB_ROOT_TOKEN when set (registered on every start, so changing it adds the new one);
 * otherwise a generated token, printed once and written to DATA_DIR/root-token.
 * Serialised by an advisory lock so replicas starting together create one root.
 */
export async function ensureRootUser(opts: {
  pool: Pool;
  topic: string;
  rootToken?: string;
  rootPassword?: string;
  rootEmail: string;
  dataDir: string;
  logger: Logger;
}): Promise<{ userId: number; tokenFile?: string }> {
  const { pool, logger } = opts;
  const actor = systemActor('identity-bootstrap');
  let generated: string | undefined;
  const userId = await withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.root_bootstrap'))");
    let root = await findUserByUsername(client, 'root');
    if (!root) {
      const passwordHash = await hashPassword(opts.rootPassword ?? randomPassword());
      const user = await insertUser(client, {
        username: 'root', name: 'Administrator', email: opts.rootEmail, isAdmin: true,
        projectsLimit: DEFAULT_PROJECTS_LIMIT, canCreateGroup: true, external: false, privateProfile: false,
        bio: '', location: '', publicEmail: '', websiteUrl: '', organization: '', jobTitle: '', skipConfirmation: true,
        passwordHash,
      });
      const ns = await insertPersonalNamespace(client, user);
      await setUserNamespace(client, user.id, ns.id);
      root = { ...user, namespace_id: ns.id };
      await recordUserCreated(client, opts.topic, root, actor);
      await recordNamespaceChanged(client, opts.topic, ns, root, actor);
      logger.info({ user_id: root.id }, 'created administrator root');
    }
    if (opts.rootToken) {
      const added = await insertTokenIfAbsent(client, {
        userId: root.id, name: 'GITLAB_ROOT_TOKEN', digest: tokenDigest(opts.rootToken), scopes: ROOT_TOKEN_SCOPES,
      });
      if (added) logger.info('registered GITLAB_ROOT_TOKEN for root');
    } else if ((await countTokensOfUser(client, root.id)) === 0) {
      generated = generateTokenSecret();
      await insertTokenIfAbsent(client, {
        userId: root.id, name: 'generated root token', digest: tokenDigest(generated), scopes: ROOT_TOKEN_SCOPES,
      });
    }
    return root.id;
  });
  if (!generated) return { userId };
  const tokenFile = path.resolve(opts.dataDir, ROOT_TOKEN_FILE);
  await mkdir(path.dirname(tokenFile), { recursive: true });
  await writeFile(tokenFile, `${generated}\n`, { mode: 0o600 });
  // Printed once, on purpose: the operator needs it and it is never shown again.
  process.stdout.write(`\nAdministrator token for root: ${generated}\n(saved to ${tokenFile})\n\n`);
  return { userId, tokenFile };
}
