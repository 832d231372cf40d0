import type { Server, ServerResponse } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { drainLogs } from './log-destination';

type Hook = { name: string; fn: () => Promise<void> | void };
const hooks: Hook[] = [];
let installed = false;
let shuttingDown = false;

/** Registers work to do on SIGTERM/SIGINT; hooks run in reverse order of registration. */
export function onShutdown(name: string, fn: () => Promise<void> | void): void {
  hooks.push({ name, fn });
}

/** True once a shutdown has begun (readiness turns false, new work is refused). */
export function isShuttingDown(): boolean {
  return shuttingDown;
}

/** Logging must never stand between the process and its exit. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // the log destination is gone; exit anyway
  }
}

/**
 * The last resort: a watchdog on its own thread SIGKILLs the process if it is still alive `ms` after shutdown began
 * (a hook or a log write blocking the main thread cannot stop a worker's timer, nor the kernel's signal).
 */
function startWatchdog(ms: number): void {
  try {
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.ms);`,
      { eval: true, workerData: { pid: process.pid, ms } },
    );
    worker.unref();
  } catch {
    // no worker (resource limits): the main-thread timer still applies
  }
}

/**
 * Runs the hooks, then exits with `exitCode`. Whatever the hooks or the log destination do, the process ends:
 * after `timeoutMs` the main-thread timer exits with 1, and a watchdog thread SIGKILLs it 2 s later if even that
 * could not run. A second signal during a shutdown exits at once with 1.
 */
export async function shutdown(logger: Logger, timeoutMs: number, exitCode = 0): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  startWatchdog(timeoutMs + 2000);
  const timer = setTimeout(() => {
    safely(() => logger.error({ timeout_ms: timeoutMs }, 'graceful shutdown timed out; exiting'));
    process.exit(1);
  }, timeoutMs);
  timer.unref();
  safely(() => logger.info({ hooks: hooks.length }, 'shutting down'));
  for (const hook of [...hooks].reverse()) {
    try {
      await hook.fn();
    } catch (err) {
      safely(() => logger.error({ err, hook: hook.name }, 'shutdown hook failed'));
    }
  }
  safely(() => logger.info('stopped'));
  await drainLogs(Math.min(500, timeoutMs)); // bounded: a stalled stdout reader loses lines, not the exit
  clearTimeout(timer);
  process.exit(exitCode);
}

export function installShutdownHandlers(logger: Logger, timeoutMs: number): void {
  if (installed) return;
  installed = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (shuttingDown) {
        safely(() => logger.warn({ signal }, 'second signal during shutdown; exiting now'));
        process.exit(1);
      }
      void shutdown(logger, timeoutMs);
    });
  }
}

/**
 * Closes an HTTP server for shutdown without resetting a request a client is sending: no new connections; every
 * response from now on says `Connection: close`, so each client learns from an answer, not from a reset, that its
 * connection is done; connections still idle after the first second (or half the grace, if shorter) are closed; every
 * connection is closed after `graceMs` (requests still running are cut). Closing idle connections at once, as
 * `server.close()` does, races the request a client may be writing on one of them that instant.
 */
export function closeHttpServer(server: Server, graceMs: number): Promise<void> {
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  });
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => undefined;
  return new Promise<void>((resolve) => {
    const sweep = setTimeout(closeIdle, Math.min(IDLE_SWEEP_DELAY_MS, Math.floor(graceMs / 2)));
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(sweep);
      clearTimeout(force);
      resolve();
    });
  });
}

/** How long a shutting-down server leaves idle connections to their clients, who learn from any answer to close. */
const IDLE_SWEEP_DELAY_MS = 1000;
