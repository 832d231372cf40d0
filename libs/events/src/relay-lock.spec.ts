import { lockConnectionConfig, relayConnectionTimeouts } from './relay-lock';

describe('relayConnectionTimeouts', () => {
  it('fills defaults of a few seconds, the open transaction outlasting the Kafka send', () => {
    expect(relayConnectionTimeouts({}, 10000)).toEqual({
      connectTimeoutMs: 5000,
      statementTimeoutMs: 5000,
      queryTimeoutMs: 7000,
      idleInTransactionTimeoutMs: 15000,
      keepAliveIdleMs: 5000,
      keepAliveIntervalMs: 2000,
      keepAliveCount: 3,
    });
    expect(relayConnectionTimeouts({ statementTimeoutMs: 1000 }, 500)).toMatchObject({ queryTimeoutMs: 3000, idleInTransactionTimeoutMs: 5500 });
  });

  it('refuses an idle-in-transaction timeout that the Kafka send could outlast', () => {
    expect(() => relayConnectionTimeouts({ idleInTransactionTimeoutMs: 10000 }, 10000)).toThrow(/must exceed sendTimeoutMs/);
  });

  it('refuses non-positive values', () => {
    expect(() => relayConnectionTimeouts({ queryTimeoutMs: 0 }, 1000)).toThrow(/queryTimeoutMs/);
    expect(() => relayConnectionTimeouts({ keepAliveCount: 1.5 }, 1000)).toThrow(/keepAliveCount/);
  });
});

describe('lockConnectionConfig', () => {
  it('sets client-side timeouts and keepalive, and server-side ones through options', () => {
    const config = lockConnectionConfig('postgres://u:p@db:5432/app', 'projects-outbox-relay', relayConnectionTimeouts({ keepAliveIntervalMs: 1500 }, 10000));
    expect(config).toMatchObject({
      connectionString: 'postgres://u:p@db:5432/app',
      application_name: 'projects-outbox-relay',
      connectionTimeoutMillis: 5000,
      query_timeout: 7000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
    });
    expect(config.options).toBe(
      '-c statement_timeout=5000 -c idle_in_transaction_session_timeout=15000 -c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3',
    );
  });
});
