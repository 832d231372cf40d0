import { createHash } from 'node:crypto';
import { Pool } from 'pg';
import { startStack, startWebhookReceiver, type RunningStack, type WebhookReceiver } from '@glp/testing';
import { apiOf } from './webhook-kit';

/**
 * Secrets at rest (issue #13): after the API was handed a password, a personal access token, a hook token and a hook
 * URL with credentials, no text/bytea/json column of the services' schemas holds any of them in clear. PATs are kept
 * as SHA-256 digests only (apps/identity/migrations/0001_identity_init.sql `token_digest bytea`,
 * apps/identity/src/domain/tokens.ts `tokenDigest`); hook URLs and tokens are sealed with AES-256-GCM
 * (apps/hooks/migrations/0001_hooks_init.sql, libs/secret-box); the delivery log keeps the URL with its credentials
 * masked, as GitLab's WebHookLog (`obfuscate_basic_auth`).
 */
describe('secrets at rest', () => {
  let stack: RunningStack;
  let receiver: WebhookReceiver;
  let pool: Pool;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ name: 'e2e_secrets_at_rest', env: { ALLOW_LOCAL_WEBHOOKS: 'true' } });
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
    await receiver?.close();
  });

  /** Every text-like, json and bytea column of a schema (bytea only for a Buffer needle): the `table.column`s that contain `needle`. */
  async function columnsHolding(schema: string, needle: string | Buffer): Promise<{ hits: string[]; columns: number }> {
    const { rows } = await pool.query<{ table_name: string; column_name: string; data_type: string; udt_name: string }>(
      `SELECT c.table_name, c.column_name, c.data_type, c.udt_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = $1
          AND (c.data_type IN ('text', 'character varying', 'character', 'bytea', 'json', 'jsonb') OR c.udt_name IN ('_text', '_varchar'))
        ORDER BY 1, 2`,
      [schema],
    );
    const hits: string[] = [];
    const bytes = typeof needle === 'string' ? Buffer.from(needle, 'utf8') : needle;
    for (const r of rows) {
      if (typeof needle !== 'string' && r.data_type !== 'bytea') continue; // raw bytes (a digest) are only searched in bytea
      const col = `${r.table_name}.${r.column_name}`;
      const target = `"${schema}"."${r.table_name}"`;
      const sql =
        r.data_type === 'bytea'
          ? `SELECT count(*)::int AS n FROM ${target} WHERE position($1::bytea IN "${r.column_name}") > 0`
          : `SELECT count(*)::int AS n FROM ${target} WHERE position($1 IN "${r.column_name}"::text) > 0`;
      const { rows: found } = await pool.query<{ n: number }>(sql, [r.data_type === 'bytea' ? bytes : bytes.toString('utf8')]);
      if (found[0]!.n > 0) hits.push(col);
    }
    return { hits, columns: rows.length };
  }

  it('keeps personal access tokens as SHA-256 digests and passwords as hashes only', async () => {
    const h = apiOf(stack);
    const password = 'At-rest-passw0rd-never-stored';
    const user = await h.post('/users', { username: 'atrest', name: 'At Rest', email: 'atrest@example.com', password, skip_confirmation: true });
    const created = await h.post(`/users/${user.id}/personal_access_tokens`, { name: 'at-rest', scopes: ['api'] });
    const pat = created.token as string;
    expect(pat).toMatch(/^glpat-/);
    expect((await fetch(`${stack.apiUrl}/user`, { headers: { 'PRIVATE-TOKEN': pat } })).status).toBe(200);

    const schema = stack.schemas.identity;
    for (const secret of [pat, stack.rootToken, password]) {
      const { hits, columns } = await columnsHolding(schema, secret);
      expect(columns).toBeGreaterThan(10);
      expect([secret.slice(0, 6), hits]).toEqual([secret.slice(0, 6), []]);
    }
    // The control: the same scan finds the token's SHA-256 digest (so bytea columns are really searched), in exactly one row.
    const digest = createHash('sha256').update(pat, 'utf8').digest();
    expect((await columnsHolding(schema, digest)).hits).toEqual(['personal_access_tokens.token_digest']);
    const { rows } = await pool.query(`SELECT name FROM "${schema}".personal_access_tokens WHERE token_digest = sha256($1::bytea)`, [Buffer.from(pat)]);
    expect(rows).toEqual([{ name: 'at-rest' }]);
    // The password is an scrypt hash (apps/identity/src/domain/password.ts), not the password.
    const hash = await pool.query<{ password_hash: string }>(`SELECT password_hash FROM "${schema}".users WHERE id = $1`, [user.id]);
    expect(hash.rows[0]!.password_hash).toMatch(/^scrypt\$/);
  });

  it('keeps hook tokens and URL credentials sealed, in the hooks schema and in the delivery log', async () => {
    const h = apiOf(stack);
    const project = await h.post('/projects', { name: 'at-rest-project' });
    const hookToken = 'hook-token-sealed-at-rest-1';
    const urlPassword = 'url-password-sealed-at-rest-2';
    const hook = await h.post(`/projects/${project.id}/hooks`, { url: `http://hookuser:${urlPassword}@127.0.0.1:${receiver.port}/at-rest-hook`, token: hookToken });
    expect(hook.url).not.toContain(urlPassword);
    await h.post(`/projects/${project.id}/hooks/${hook.id}/test/push_events`, {}, 201);
    await receiver.waitFor('/at-rest-hook', 1);
    expect(receiver.at('/at-rest-hook')[0]!.headers['x-gitlab-token']).toBe(hookToken);
    // The delivery log row is written after the answer: wait for it.
    const deadline = Date.now() + 15000;
    while ((await columnsHolding(stack.schemas.webhookDispatcher, '/at-rest-hook')).hits.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

    for (const schema of [stack.schemas.hooks, stack.schemas.webhookDispatcher]) {
      // The control: the scan finds the URL's path (kept in clear for display), so the columns are really searched.
      expect((await columnsHolding(schema, '/at-rest-hook')).hits.length).toBeGreaterThan(0);
      for (const secret of [hookToken, urlPassword]) {
        const { hits } = await columnsHolding(schema, secret);
        expect([schema, secret.slice(0, 6), hits]).toEqual([schema, secret.slice(0, 6), []]);
      }
    }
  });
});
