// One jest run, three kinds of tests:
//   unit         src/**/*.spec.ts            pure rules, no I/O
//   integration  test/integration/*.test.ts   one service or lib against real PostgreSQL/Redis/Kafka
//   e2e          test/e2e/*.test.ts           a booted stack over HTTP (curl-like, @gitbeaker/rest, python-gitlab)
//   chart        charts/*/test/*.test.ts      helm lint/template + kubernetes-validate, no cluster (deploy/local/helm.sh);
//                charts/*/test/integration/   what the chart runs, for real (integration project)
// Integration and e2e tests get their infrastructure from libs/testing (env URLs, testcontainers, or deploy/local/infra.sh).
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const moduleNameMapper = { '^@glp/(proto|service-kit|db|events|testing|url-guard|secret-box|untrusted-regexp)$': '<rootDir>/libs/$1/src/index.ts' };
// .infra holds the local infrastructure's data and built previous releases (npm run test:upgrade): never modules or tests.
const common = { transform, moduleNameMapper, testEnvironment: 'node', rootDir: __dirname, modulePathIgnorePatterns: ['<rootDir>/.infra/'] };
const withInfra = {
  ...common,
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  slowTestThreshold: 30,
};

module.exports = {
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/*/src/**/*.spec.ts'] },
    { ...withInfra, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/*/test/integration/**/*.test.ts', '<rootDir>/charts/*/test/integration/**/*.test.ts'] },
    { ...withInfra, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs}/*/test/e2e/**/*.test.ts'], setupFiles: ['<rootDir>/libs/testing/src/jest/capture-secrets.ts'] },
    { ...common, displayName: 'chart', testMatch: ['<rootDir>/charts/*/test/*.test.ts'] },
  ],
};
