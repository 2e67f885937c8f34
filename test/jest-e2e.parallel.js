const { base, SERIAL_PATHS } = require('./jest-e2e.base');

/**
 * The e2e suites that run side by side (`npm run test:e2e:parallel`): all but the serial ones.
 * Two workers measured fastest on a 2-core machine.
 * @type {import('jest').Config}
 */
module.exports = {
  ...base,
  displayName: 'e2e',
  testRegex: '\\.e2e-spec\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', SERIAL_PATHS],
  maxWorkers: 2,
};
