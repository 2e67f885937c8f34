/**
 * The dependency rules of `src/` (docs/architecture.md#the-dependency-rule), checked by
 * `npm run lint:deps`:
 * - the core never imports an extension (`src/ext/`); only the composition roots (the module, its
 *   providers and the public faces in `src/entry/`) may;
 * - an extension may import the core and the extensions it is built on, listed in EXTENSION_DEPENDS;
 * - inside the core, a folder imports its own band and the bands below it, never one above;
 * - no import circle, type imports included.
 */
const ROOTS = '^src/[^/]+\\.ts$|^src/entry/|^src/testing/';
const BANDS = [
  ['module', '^src/(throttler|health)/'],
  ['wire', '^src/(transport|protocol|auth|lifecycle)/'],
  ['operations', '^src/(discovery|decorators|context|pipeline|handles)/'],
  ['call services', '^src/(observability|replay|validation|identity|interfaces|state|input)/'],
  ['infrastructure', '^src/(stores|keyring|ports|redis|notifications|options)/'],
  ['kit', '^src/(errors|util)/'],
];
/** Which extension may import which (never the reverse). */
const EXTENSION_DEPENDS = { sessions: ['tasks'], tasks: [], skills: [] };

/** Imports against the band order, each with why it is there (docs/architecture.md). */
const ALLOWED_UPWARD = [];

const NOT_SPEC = '\\.spec(-helper)?\\.ts$';
const upward = BANDS.slice(1).map(([name, path], index) => ({
  name: `band-${name.replace(/ /g, '-')}`,
  comment: `${name} may not import a band above it (${BANDS.slice(0, index + 1)
    .map(([above]) => above)
    .join(', ')})`,
  severity: 'error',
  from: { path, pathNot: NOT_SPEC },
  to: {
    path: BANDS.slice(0, index + 1)
      .map(([, above]) => `(${above})`)
      .join('|'),
    pathNot: ALLOWED_UPWARD.length ? ALLOWED_UPWARD.join('|') : '^$',
  },
}));

const extensions = Object.entries(EXTENSION_DEPENDS).map(([name, allowed]) => ({
  name: `ext-${name}-imports`,
  comment: `ext/${name} may import the core${allowed.length ? ` and ext/${allowed.join(', ext/')}` : ''}, no other extension`,
  severity: 'error',
  from: { path: `^src/ext/${name}/`, pathNot: NOT_SPEC },
  to: {
    path: '^src/ext/',
    pathNot: [`^src/ext/${name}/`, ...allowed.map((each) => `^src/ext/${each}/`)].join('|'),
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, types included',
      severity: 'error',
      from: { path: '^src/', pathNot: NOT_SPEC },
      to: { circular: true },
    },
    {
      name: 'core-never-imports-an-extension',
      comment: 'Only the composition roots (src/*.ts, src/entry/) may import src/ext/',
      severity: 'error',
      from: { path: '^src/', pathNot: `${ROOTS}|^src/ext/|${NOT_SPEC}` },
      to: { path: '^src/ext/' },
    },
    {
      name: 'nothing-imports-a-root',
      comment:
        'The composition roots and faces sit on top: nothing in the core or an extension imports them',
      severity: 'error',
      from: { path: '^src/', pathNot: `${ROOTS}|${NOT_SPEC}` },
      to: { path: ROOTS },
    },
    ...extensions,
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: NOT_SPEC },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
