import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import SonicBoom from 'sonic-boom';

/**
 * Where a process's JSON logs go: stdout, written so that logging can never stall the process or its exit.
 *
 * Why not pino's default: it writes through libuv's thread pool with blocking write(2) calls and flushes
 * synchronously on exit. When stdout is a pipe whose reader stopped reading (a log prefixer gone with its process
 * group, a full pipe), one pool thread blocks forever in write(2), and `process.exit` then waits forever for that
 * thread (libuv joins its pool at exit): the process never ends and no signal handler can run.
 *
 * - stdout is a pipe or socket: a non-blocking libuv stream (a `net.Socket` on the fd); the lines of one event-loop
 *   turn leave in one write. A write the pipe cannot take now is queued in memory, never blocking; past `maxBufferedBytes` queued, lines are dropped and counted;
 *   a gone reader (EPIPE) stops logging. At exit whatever is still queued is lost, never waited for: shutdown()
 *   gives the queue a short, bounded chance to drain first (`drainLogs`).
 * - stdout is a file or a terminal (writes cannot stall for long): pino's SonicBoom, asynchronous, with one
 *   best-effort synchronous flush at exit.
 */
export interface LogDestination {
  /** What pino writes to. */
  stream: { write(line: string): boolean };
  /** Lines dropped because the reader was not keeping up, or gone. */
  dropped(): number;
  /** Resolves once everything written so far is handed to the OS, or after `ms`, whichever comes first. */
  drain(ms: number): Promise<void>;
}

let stdoutDestination: LogDestination | undefined;

function isPipeOrSocket(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

function socketDestination(fd: number, maxBufferedBytes: number): LogDestination {
  const socket = new Socket({ fd, readable: false, writable: true });
  socket.unref(); // logging alone never keeps a process alive
  let dropped = 0;
  let broken = false;
  socket.on('error', () => {
    broken = true; // EPIPE and friends: the reader is gone
  });
  // Lines logged in one turn of the event loop leave in one write (one syscall, not one per line).
  let pending: string[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending.length) return;
    const chunk = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    pendingBytes = 0;
    if (!broken) socket.write(chunk);
  };
  return {
    stream: {
      write(line: string): boolean {
        if (broken || socket.writableLength + pendingBytes > maxBufferedBytes) {
          dropped++;
          return true;
        }
        pending.push(line);
        pendingBytes += line.length;
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
        return true;
      },
    },
    dropped: () => dropped,
    drain: (ms) =>
      new Promise<void>((resolve) => {
        flush();
        if (broken || socket.writableLength === 0) return resolve();
        const timer = setTimeout(done, ms);
        const poll = setInterval(() => (broken || socket.writableLength === 0) && done(), 10);
        function done() {
          clearTimeout(timer);
          clearInterval(poll);
          resolve();
        }
      }),
  };
}

function fileDestination(fd: number, maxBufferedBytes: number): LogDestination {
  let dropped = 0;
  let broken = false;
  const stream = new SonicBoom({ fd, sync: false, maxLength: maxBufferedBytes });
  stream.on('drop', () => void dropped++);
  stream.on('error', () => {
    if (broken) return;
    broken = true;
    stream.write = () => {
      dropped++;
      return true;
    };
  });
  process.once('exit', () => {
    if (broken) return;
    try {
      stream.flushSync();
    } catch {
      // not ready or closed: the remaining lines are lost, the exit is not
    }
  });
  return {
    stream,
    dropped: () => dropped,
    drain: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        try {
          stream.flush(() => {
            clearTimeout(timer);
            resolve();
          });
        } catch {
          clearTimeout(timer);
          resolve();
        }
      }),
  };
}

export function createLogDestination(fd = 1, maxBufferedBytes = 16 * 1024 * 1024): LogDestination {
  return isPipeOrSocket(fd) ? socketDestination(fd, maxBufferedBytes) : fileDestination(fd, maxBufferedBytes);
}

/** The process-wide stdout destination (one per process, shared by every logger). */
export function stdoutLogDestination(): LogDestination {
  return (stdoutDestination ??= createLogDestination(1));
}

/** Gives queued log lines up to `ms` to reach stdout; used right before a deliberate exit. */
export function drainLogs(ms: number): Promise<void> {
  return stdoutDestination ? stdoutDestination.drain(ms) : Promise.resolve();
}
