import { rmSync } from 'node:fs';
import { stopProvidedInfra } from '../infra';
import { assertNoSecretsInSuiteLogs, SUITE_LOG_DIR_ENV } from '../secret-registry';

export default async function globalTeardown(): Promise<void> {
  try {
    // Every log line of every stack this run started, searched for every secret the run used: throws on a leak.
    const dir = process.env[SUITE_LOG_DIR_ENV];
    if (dir) {
      assertNoSecretsInSuiteLogs(dir);
      if (process.env.GLP_SUITE_LOG_DIR_CREATED) rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await stopProvidedInfra();
  }
}
