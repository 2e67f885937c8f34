/**
 * What every e2e run shares. A suite says by its file name how it runs:
 * - `*.e2e-spec.ts`: side by side with the others (`jest-e2e.parallel.js`). Each starts its servers
 *   on port 0 and its own redis-server, and writes no file another suite reads.
 * - `*.serial.e2e-spec.ts`: one at a time, after the side-by-side pass (`jest-e2e.serial.js`): it
 *   measures the server (hostile bodies, the built sample app's CPU and stalls), so nothing else may
 *   disturb it. `npm test` runs these too.
 * - `*.load.e2e-spec.ts`: one at a time as well, but only in `npm run test:all`: it loads the
 *   machine or the fleet for long (soaks, fleets of instances, Redis outages and failover).
 */

/** A path regex matching every suite that runs one at a time. */
const SERIAL_PATHS = '\\.(serial|load)\\.e2e-spec\\.ts$';
/** A path regex matching the serial suites that only the full matrix runs. */
const MATRIX_ONLY_PATHS = '\\.load\\.e2e-spec\\.ts$';

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

module.exports = { base, SERIAL_PATHS, MATRIX_ONLY_PATHS };
