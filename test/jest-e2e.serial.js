const { base, SERIAL_PATHS } = require('./jest-e2e.base');

/**
 * The load, fleet and child-process e2e suites (`npm run test:e2e:serial`), one at a time, after
 * the parallel run. See jest-e2e.base.js for which and why.
 * @type {import('jest').Config}
 */
module.exports = {
  ...base,
  displayName: 'e2e serial',
  testRegex: SERIAL_PATHS,
  maxWorkers: 1,
};
