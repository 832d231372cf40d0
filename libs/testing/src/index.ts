export * from './docker-probe';
export * from './infra';
export * from './isolation';
export * from './free-port';
export * from './stack';
export * from './rejection';
export * from './static-server';
