import { serverTimeoutOptions } from './server-timeouts';

describe('serverTimeoutOptions', () => {
  it('passes the three timeouts to Node and checks them every second (Node checks every 30 s by default)', () => {
    expect(serverTimeoutOptions({ headersMs: 10_000, requestMs: 3_600_000, keepAliveMs: 65_000 })).toEqual({
      headersTimeout: 10_000, requestTimeout: 3_600_000, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1000,
    });
  });

  it('checks a short headers timeout four times within it, and allows no request timeout (0)', () => {
    expect(serverTimeoutOptions({ headersMs: 1500, requestMs: 0, keepAliveMs: 1000 })).toMatchObject({ requestTimeout: 0, connectionsCheckingInterval: 375 });
    expect(serverTimeoutOptions({ headersMs: 100, requestMs: 4000, keepAliveMs: 1000 }).connectionsCheckingInterval).toBe(50);
  });

  it('refuses a headers timeout above the request timeout (Node would throw without saying which setting)', () => {
    expect(() => serverTimeoutOptions({ headersMs: 20_000, requestMs: 10_000, keepAliveMs: 1000 })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS (20000) must not exceed HTTP_REQUEST_TIMEOUT_MS (10000)');
  });
});
