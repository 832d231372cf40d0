// Secrets at rest (import URLs' credentials, webhook tokens): AES-256-GCM, shared by the services that seal secrets.
export * from './secret-box';
