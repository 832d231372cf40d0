import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * shutdown() ends the process whatever its hooks do: a hook that never settles meets the main-thread timer
 * (exit 1 at SHUTDOWN_TIMEOUT_MS), a hook that blocks the main thread meets the watchdog thread (SIGKILL 2 s later).
 */
const KIT = path.resolve(__dirname, '../../dist/index.js');

function runWithHook(hook: string, timeoutMs: number): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
  const script = `
    const { createLogger, installShutdownHandlers, onShutdown } = require(${JSON.stringify(KIT)});
    const logger = createLogger('shutdown-test', 'info');
    installShutdownHandlers(logger, ${timeoutMs});
    onShutdown('under test', ${hook});
    setInterval(() => {}, 1000);
    process.stderr.write('ready\\n');`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 20000);
    let started = 0;
    child.stderr!.on('data', (b: Buffer) => {
      if (!started && b.toString().includes('ready')) {
        started = Date.now();
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ ms: Date.now() - started, code, signal });
    });
  });
}

describe('shutdown', () => {
  it('exits 0 once every hook has run', async () => {
    const end = await runWithHook('async () => { await new Promise((r) => setTimeout(r, 100)); }', 2000);
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.ms).toBeLessThan(1500);
  });

  it('exits 1 at the timeout when a hook never settles', async () => {
    const end = await runWithHook('() => new Promise(() => {})', 500);
    expect(end).toMatchObject({ code: 1, signal: null });
    expect(end.ms).toBeGreaterThanOrEqual(450);
    expect(end.ms).toBeLessThan(2000);
  });

  it('is killed by its watchdog when a hook blocks the main thread (no timer or signal handler can run)', async () => {
    const end = await runWithHook('() => { for (;;) {} }', 500);
    expect(end.signal).toBe('SIGKILL');
    expect(end.ms).toBeGreaterThanOrEqual(2000);
    expect(end.ms).toBeLessThan(5000);
  });
});
