import { provideInfra } from '../infra';

/** Jest globalSetup for integration and e2e projects: exports the infra URLs to every test worker. */
export default async function globalSetup(): Promise<void> {
  const urls = await provideInfra();
  process.env.DATABASE_URL = urls.databaseUrl;
  process.env.REDIS_URL = urls.redisUrl;
  process.env.KAFKA_BROKERS = urls.kafkaBrokers.join(',');
}
