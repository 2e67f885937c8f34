/**
 * The layers of `src/`, outside in (docs/architecture.md): a folder may import its own files and
 * the layers below it, never one above. `npm run lint:deps` checks it, with no import circles.
 * The few imports allowed against the order are listed in ALLOWED_UPWARD, each with its reason.
 */
const LAYERS = [
  ['root', '^src/[^/]+\\.ts$|^src/testing/|^src/throttler/|^src/(redis|sessions)/index\\.ts$'],
  ['transport', '^src/transport/'],
  ['sessions', '^src/sessions/(?!index\\.ts$)'],
  ['auth', '^src/auth/'],
  ['protocol', '^src/protocol/'],
  ['features', '^src/(tasks|handles)/'],
  ['discovery', '^src/discovery/'],
  ['face', '^src/(decorators|context)/'],
  ['pipeline', '^src/pipeline/'],
  ['replay', '^src/replay/'],
  ['validation', '^src/validation/'],
  ['identity', '^src/identity/'],
  ['interfaces', '^src/interfaces/'],
  ['state', '^src/state/'],
  ['input', '^src/input/'],
  ['stores', '^src/stores/'],
  ['keyring', '^src/keyring/'],
  ['ports', '^src/ports/'],
  ['redis', '^src/redis/(?!index\\.ts$)'],
  ['options', '^src/options/'],
  ['errors', '^src/errors/'],
  ['util', '^src/util/'],
];

/** Imports against the layer order, each with why it is there (docs/architecture.md). */
const ALLOWED_UPWARD = [];

const upward = LAYERS.slice(1).map(([name, path], index) => ({
  name: `layer-${name}`,
  comment: `${name} may not import a layer above it (${LAYERS.slice(0, index + 1)
    .map(([above]) => above)
    .join(', ')})`,
  severity: 'error',
  from: { path, pathNot: '\\.spec(-helper)?\\.ts$' },
  to: {
    path: LAYERS.slice(0, index + 1)
      .map(([, above]) => `(${above})`)
      .join('|'),
    pathNot: ALLOWED_UPWARD.length ? ALLOWED_UPWARD.join('|') : '^$',
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, types included',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.spec(-helper)?\\.ts$' },
      to: { circular: true },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec(-helper)?\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
