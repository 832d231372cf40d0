import { stopProvidedInfra } from '../infra';

export default async function globalTeardown(): Promise<void> {
  await stopProvidedInfra();
}
