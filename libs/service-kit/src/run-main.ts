import { ConfigError } from './config';

/**
 * Runs a process's main: a configuration error exits 2 with the variables named, any
 * other start-up failure exits 1 with its stack.
 */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${service}: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
