import type { Logger } from 'pino';

type Hook = { name: string; fn: () => Promise<void> | void };
const hooks: Hook[] = [];
let installed = false;
let shuttingDown = false;

/** Registers work to do on SIGTERM/SIGINT; hooks run in reverse order of registration. */
export function onShutdown(name: string, fn: () => Promise<void> | void): void {
  hooks.push({ name, fn });
}

export async function shutdown(logger: Logger, timeoutMs: number, exitCode = 0): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ hooks: hooks.length }, 'shutting down');
  const timer = setTimeout(() => {
    logger.error('graceful shutdown timed out; exiting');
    process.exit(1);
  }, timeoutMs);
  timer.unref();
  for (const hook of [...hooks].reverse()) {
    try {
      await hook.fn();
    } catch (err) {
      logger.error({ err, hook: hook.name }, 'shutdown hook failed');
    }
  }
  clearTimeout(timer);
  logger.info('stopped');
  process.exit(exitCode);
}

export function installShutdownHandlers(logger: Logger, timeoutMs: number): void {
  if (installed) return;
  installed = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void shutdown(logger, timeoutMs));
  }
}
