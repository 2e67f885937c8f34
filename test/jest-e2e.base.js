/**
 * What both e2e runs share. The suites are split in two runs, one after the other:
 * - `jest-e2e.parallel.js`: every suite not listed below, several at once. Each starts its
 *   servers on port 0 and its own redis-server, and writes no file another suite reads.
 * - `jest-e2e.serial.js`: the SERIAL suites, one at a time: they load the machine (hostile bodies,
 *   the built sample app in child processes, Redis outages and failover between instances), and
 *   their timing must not be what another suite is disturbed by, nor disturbed by another suite.
 */
const SERIAL = [
  'hostile-input',
  'sample-task-failover',
  'bullmq-task-runner',
  'bullmq-fleet',
  'redis-fleet',
  'state-handles-fleet',
  'task-events-fleet',
  'redis-integrity',
  'task-memory',
  'task-step-fencing',
  'fair-share',
  'session-fleet',
];

/** A path regex matching exactly the SERIAL suites. */
const SERIAL_PATHS = `/test/(${SERIAL.join('|')})\\.e2e-spec\\.ts$`;

/** @type {import('jest').Config} */
const base = {
  rootDir: '..',
  roots: ['<rootDir>/test'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  // A hang guard, not a bound: on a loaded 2-core machine a suite's servers, clients and child
  // processes can take longer than Jest's 5 s default for one test without anything being wrong.
  testTimeout: 30_000,
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }],
  },
};

module.exports = { base, SERIAL_PATHS };
