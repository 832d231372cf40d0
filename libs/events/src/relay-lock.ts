import type { Client, ClientConfig } from 'pg';

/** Timeouts of the relay's lock connection, so a dead or half-open connection cannot hang the relay (or keep the lock) for long. */
export interface RelayConnectionOptions {
  /** Connecting (incl. authentication) gives up after this (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Server side: statement_timeout of the lock connection (default 5000 ms). */
  statementTimeoutMs?: number;
  /**
   * Client side: a query without an answer after this fails and the connection is dropped
   * (a half-open TCP connection never answers). Default statementTimeoutMs + 2000 ms,
   * so that a slow statement is normally cancelled by the server first.
   */
  queryTimeoutMs?: number;
  /**
   * Server side: idle_in_transaction_session_timeout. A batch's transaction is open while
   * Kafka acknowledges the batch, so it must exceed sendTimeoutMs. Default sendTimeoutMs + 5000 ms.
   */
  idleInTransactionTimeoutMs?: number;
  /** TCP keepalive (both ends): first probe after this much idle (default 5000 ms; tcp_keepalives_idle on the server). */
  keepAliveIdleMs?: number;
  /** Server side: tcp_keepalives_interval (default 2000 ms). */
  keepAliveIntervalMs?: number;
  /** Server side: tcp_keepalives_count, unanswered probes before the server drops a dead client (default 3). */
  keepAliveCount?: number;
}

export type RelayConnectionTimeouts = Required<RelayConnectionOptions>;

/** Fills the defaults and checks that the Kafka send fits inside the open transaction's timeout. */
export function relayConnectionTimeouts(opts: RelayConnectionOptions, sendTimeoutMs: number): RelayConnectionTimeouts {
  const statementTimeoutMs = opts.statementTimeoutMs ?? 5000;
  const t: RelayConnectionTimeouts = {
    connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
    statementTimeoutMs,
    queryTimeoutMs: opts.queryTimeoutMs ?? statementTimeoutMs + 2000,
    idleInTransactionTimeoutMs: opts.idleInTransactionTimeoutMs ?? sendTimeoutMs + 5000,
    keepAliveIdleMs: opts.keepAliveIdleMs ?? 5000,
    keepAliveIntervalMs: opts.keepAliveIntervalMs ?? 2000,
    keepAliveCount: opts.keepAliveCount ?? 3,
  };
  for (const [name, value] of Object.entries(t)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${value})`);
  }
  if (t.idleInTransactionTimeoutMs <= sendTimeoutMs) {
    throw new Error(
      `idleInTransactionTimeoutMs (${t.idleInTransactionTimeoutMs}) must exceed sendTimeoutMs (${sendTimeoutMs}): the batch's transaction stays open during the send`,
    );
  }
  return t;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** pg Client settings of the lock connection: client-side timeouts and keepalive, server-side timeouts and keepalive via `options`. */
export function lockConnectionConfig(databaseUrl: string, applicationName: string, t: RelayConnectionTimeouts): ClientConfig {
  return {
    connectionString: databaseUrl,
    application_name: applicationName,
    connectionTimeoutMillis: t.connectTimeoutMs,
    query_timeout: t.queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.keepAliveIdleMs,
    options: [
      `-c statement_timeout=${t.statementTimeoutMs}`,
      `-c idle_in_transaction_session_timeout=${t.idleInTransactionTimeoutMs}`,
      `-c tcp_keepalives_idle=${seconds(t.keepAliveIdleMs)}`,
      `-c tcp_keepalives_interval=${seconds(t.keepAliveIntervalMs)}`,
      `-c tcp_keepalives_count=${t.keepAliveCount}`,
    ].join(' '),
  };
}

/** The relay no longer holds its lock on the session it uses: it must not publish. */
export class LockLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockLostError';
  }
}

/**
 * The session-level advisory lock pg_try_advisory_lock(hashtext(key)) on one connection.
 * hashtext() is an int4, widened to the bigint form of the lock, which pg_locks shows as
 * classid = high 32 bits, objid = low 32 bits, objsubid = 1.
 */
export class RelayLock {
  /** pg_backend_pid() of the session that took the lock. */
  private pid: number | undefined;

  constructor(
    private readonly client: Client,
    readonly key: string,
  ) {}

  get backendPid(): number | undefined {
    return this.pid;
  }

  /** Tries to take the lock (never waits); remembers the session's backend pid. */
  async tryAcquire(): Promise<boolean> {
    const { rows } = await this.client.query<{ locked: boolean; pid: number }>(
      'SELECT pg_try_advisory_lock(hashtext($1)) AS locked, pg_backend_pid() AS pid',
      [this.key],
    );
    const row = rows[0];
    if (!row?.locked) return false;
    this.pid = row.pid;
    return true;
  }

  /**
   * Proves that THIS session still holds the lock and is the session that took it (not
   * another backend behind a pooler); throws LockLostError otherwise. Run it inside the
   * batch's transaction: the rest of the batch is then fenced by the same session.
   */
  async verify(): Promise<void> {
    const { rows } = await this.client.query<{ pid: number; held: boolean }>(
      `SELECT pg_backend_pid() AS pid, EXISTS (
         SELECT 1 FROM pg_locks l, (SELECT hashtext($1)::bigint AS k) lock_key
         WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid()
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.classid = ((lock_key.k >> 32) & 4294967295)::oid
           AND l.objid = (lock_key.k & 4294967295)::oid
           AND l.objsubid = 1
       ) AS held`,
      [this.key],
    );
    const row = rows[0];
    if (this.pid === undefined) throw new LockLostError('the relay lock was never taken on this connection');
    if (!row || row.pid !== this.pid) throw new LockLostError(`session changed: lock taken by backend ${this.pid}, now on ${row?.pid}`);
    if (!row.held) throw new LockLostError(`backend ${this.pid} no longer holds the relay lock`);
  }
}
