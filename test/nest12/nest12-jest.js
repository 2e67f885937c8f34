// The e2e suites on Nest 12: each pass of test/jest-e2e.*.js as it is, with @nestjs/* resolved from
// the Nest 12 install. Run them with `npm run test:e2e:nest12` (scripts/nest12.mjs installs Nest 12,
// picks a Node >= 24.9 and starts Jest with --experimental-vm-modules, which Jest's require(esm)
// needs).

/** `config` (one pass of the e2e suites) on Nest 12. @type {(config: import('jest').Config) => import('jest').Config} */
module.exports = (config) => ({
  ...config,
  rootDir: '../..',
  resolver: '<rootDir>/test/nest12/jest-resolver.js',
  setupFiles: ['<rootDir>/test/nest12/jest-setup.js'],
});
