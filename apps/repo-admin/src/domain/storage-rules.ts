/** The storage a project's repository lives on, as events name it (empty: the first storage, "default"). */
export const storageOf = (named: string | undefined) => named || 'default';

/** Whether this replica (serving `storage`) acts on an event about a repository on `named`. */
export const servesStorage = (storage: string, named: string | undefined) => storageOf(named) === storage;

/**
 * The consumer group of a replica: one per storage, so each storage's replica sees every project event and keeps the
 * ones for its own repositories (KAFKA_CONSUMER_GROUP overrides it).
 */
export const consumerGroupFor = (configured: string, storage: string) => configured || `repo-admin-${storage}`;
