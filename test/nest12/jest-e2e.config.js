// The e2e suite on Nest 12: test/jest-e2e.json, with @nestjs/* resolved from the Nest 12 install.
// Run it with `npm run test:e2e:nest12` (scripts/nest12.mjs installs Nest 12, picks a Node >= 24.9
// and starts Jest with --experimental-vm-modules, which Jest's require(esm) needs).
const base = require('../jest-e2e.json');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  resolver: '<rootDir>/test/nest12/jest-resolver.js',
  setupFiles: ['<rootDir>/test/nest12/jest-setup.js'],
};
