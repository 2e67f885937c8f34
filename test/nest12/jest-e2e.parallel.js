/** The parallel pass of the e2e suites (test/jest-e2e.parallel.js), on Nest 12. */
module.exports = require('./nest12-jest')(require('../jest-e2e.parallel'));
