import pino, { type Logger } from 'pino';
import { currentContext } from './context';
import { stdoutLogDestination } from './log-destination';
import { REDACT_PATHS, REDACTED } from './redact';

export type { Logger } from 'pino';

/**
 * JSON logs on stdout (never blocking, see log-destination.ts); every line written inside a request carries its
 * request id, and credentials are censored (redact.ts).
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      mixin() {
        const ctx = currentContext();
        return ctx ? { request_id: ctx.requestId } : {};
      },
    },
    stdoutLogDestination().stream,
  );
}

/**
 * A logger for lines whose fields are fixed and already free of credentials (the gateway's access log: method,
 * path through redactUrl, status, ms, request id). Same destination and format, without the redaction pass
 * (its wildcard paths cost more than the rest of such a line).
 */
export function createFixedFieldsLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime }, stdoutLogDestination().stream);
}
