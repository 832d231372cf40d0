import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger } from 'pino';

/** JSON logs; every line written inside a request carries its request id. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const ctx = currentContext();
      return ctx ? { request_id: ctx.requestId } : {};
    },
  });
}
