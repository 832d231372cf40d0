export * from './docker-probe';
export * from './infra';
export * from './isolation';
