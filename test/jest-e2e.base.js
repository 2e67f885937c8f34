const { readdirSync } = require('node:fs');
const { basename, join } = require('node:path');

/**
 * What every e2e run shares. The suites run in two passes, one after the other:
 * - `jest-e2e.parallel.js`: every suite not listed below, several at once. Each starts its
 *   servers on port 0 and its own redis-server, and writes no file another suite reads.
 * - `jest-e2e.serial.js`: the SERIAL suites, one at a time: they load the machine (hostile bodies,
 *   the built sample app in child processes, Redis outages and failover between instances), and
 *   their timing must not be what another suite is disturbed by, nor disturbed by another suite.
 * A suite is named by its file name, wherever it lives under test/.
 *
 * `npm test` (the inner loop, `scripts/e2e.mjs --loop`) runs of the serial suites only those in
 * SERIAL_IN_LOOP; the others, the load, fleet and failover suites, run in `npm run test:all`.
 * A suite added to SERIAL is therefore left to the full matrix unless it is named here too.
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
  'sample-telemetry',
  'bullmq-trace',
  'redis-sentinel',
  'sample-rolling-restart',
  'redis-replica-acks',
  'browser-client',
  'sample-runtime-tools',
  'sample-stdio',
];

/** The serial suites the inner loop runs too: they measure the server, they do not soak it. */
const SERIAL_IN_LOOP = ['hostile-input', 'sample-telemetry', 'redis-integrity'];

/** A path regex matching exactly the suites `names`, in any folder under test/. */
const pathsOf = (names) => `/test/(?:.+/)?(${names.join('|')})\\.e2e-spec\\.ts$`;

/** A path regex matching exactly the SERIAL suites. */
const SERIAL_PATHS = pathsOf(SERIAL);
/** A path regex matching the serial suites that only the full matrix runs. */
const MATRIX_ONLY_PATHS = pathsOf(SERIAL.filter((name) => !SERIAL_IN_LOOP.includes(name)));

// A name that matches no suite (a typo, a suite renamed or moved away) would let that suite run
// side by side with the others unnoticed: refuse it.
const SUITES = new Set(
  readdirSync(__dirname, { recursive: true })
    .map(String)
    .filter((path) => path.endsWith('.e2e-spec.ts') && !path.includes('node_modules'))
    .map((path) => basename(path, '.e2e-spec.ts')),
);
const unknown = [...SERIAL, ...SERIAL_IN_LOOP].filter((name) => !SUITES.has(name));
if (unknown.length > 0)
  throw new Error(
    `${join(__dirname, 'jest-e2e.base.js')} names no such suite: ${unknown.join(', ')}`,
  );
const notSerial = SERIAL_IN_LOOP.filter((name) => !SERIAL.includes(name));
if (notSerial.length > 0)
  throw new Error(`SERIAL_IN_LOOP names suites that are not SERIAL: ${notSerial.join(', ')}`);

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
