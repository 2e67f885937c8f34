const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * The dependency rules of `src/` (docs/architecture.md#the-dependency-rule), checked by
 * `npm run lint:deps`:
 * - the core is a dozen rooms in one order, outside in (ROOMS): a room imports the rooms below it,
 *   never one above;
 * - the core never imports an extension (`src/ext/<name>/`) nor the door (`src/extension-api.ts`);
 *   only the composition roots (`src/*.ts`: the module, its definition, its providers, the options,
 *   the one list of extensions) and the public faces (`src/entry/`) may;
 * - an extension imports the core only through the door, besides the kit (`src/kit/`) and the
 *   extensions its definition names in `dependsOn`: every folder under `src/ext/` is held to this,
 *   its `dependsOn` read from its `<name>.extension.ts`, so a new extension is checked without
 *   anyone listing it here;
 * - no import circle, type imports included.
 */
const ROOTS = '^src/(?!extension-api\\.ts$)[^/]+\\.ts$|^src/entry/';
const DOOR = '^src/extension-api\\.ts$';
const KIT = '^src/kit/';
/** The core's rooms, outside in: each imports only the rooms after it in this list. */
const ROOMS = [
  'wire',
  'operations',
  'pipeline',
  'observability',
  'auth',
  'request-state',
  'keyring',
  'input',
  'redis',
  'options',
  'kit',
];
/** Imports against the room order, each with why it is there (docs/architecture.md). */
const ALLOWED_UPWARD = [];

const NOT_SPEC = '\\.spec(-helper)?\\.ts$';
const EXT = join(__dirname, 'src', 'ext');

/** Each extension's folder name and the extensions its definition says it is built on. */
function extensions() {
  if (!existsSync(EXT)) return [];
  return readdirSync(EXT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name }) => {
      const definition = join(EXT, name, `${name}.extension.ts`);
      if (!existsSync(definition))
        throw new Error(`src/ext/${name}/ has no ${name}.extension.ts defining the extension`);
      const dependsOn = /dependsOn:\s*\[([^\]]*)\]/.exec(readFileSync(definition, 'utf8'));
      const names = dependsOn ? [...dependsOn[1].matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]) : [];
      return { name, dependsOn: names };
    });
}

const rooms = ROOMS.slice(1).map((room, index) => ({
  name: `room-${room}`,
  comment: `${room} may not import a room above it (${ROOMS.slice(0, index + 1).join(', ')})`,
  severity: 'error',
  from: { path: `^src/${room}/`, pathNot: NOT_SPEC },
  to: {
    path: ROOMS.slice(0, index + 1)
      .map((above) => `^src/${above}/`)
      .join('|'),
    pathNot: ALLOWED_UPWARD.length ? ALLOWED_UPWARD.join('|') : '^$',
  },
}));

const throughTheDoor = extensions().map(({ name, dependsOn }) => ({
  name: `ext-${name}-through-the-door`,
  comment:
    `ext/${name} may import the core only through src/extension-api.ts, besides the kit` +
    (dependsOn.length ? ` and ext/${dependsOn.join(', ext/')}` : ''),
  severity: 'error',
  from: { path: `^src/ext/${name}/`, pathNot: NOT_SPEC },
  to: {
    path: '^src/',
    pathNot: [`^src/ext/${name}/`, DOOR, KIT, ...dependsOn.map((each) => `^src/ext/${each}/`)].join(
      '|',
    ),
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
      comment:
        'Only the composition roots (src/*.ts) and the faces (src/entry/) may import src/ext/',
      severity: 'error',
      from: { path: '^src/', pathNot: `${ROOTS}|^src/ext/|${NOT_SPEC}` },
      to: { path: '^src/ext/' },
    },
    {
      name: 'only-extensions-use-the-door',
      comment: 'src/extension-api.ts is for extensions; the core imports its own files',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/ext/|${DOOR}|${NOT_SPEC}` },
      to: { path: DOOR },
    },
    {
      name: 'nothing-imports-a-root',
      comment:
        'The composition roots and faces sit on top: nothing in the core or an extension imports them',
      severity: 'error',
      from: { path: '^src/', pathNot: `${ROOTS}|${NOT_SPEC}` },
      to: { path: ROOTS },
    },
    {
      name: 'every-file-has-a-room',
      comment: `A folder of src/ is a room of the core (${ROOMS.join(', ')}), ext/ or entry/`,
      severity: 'error',
      from: {
        path: '^src/[^/]+/',
        pathNot: `^src/(${[...ROOMS, 'ext', 'entry'].join('|')})/|${NOT_SPEC}`,
      },
      to: {},
    },
    ...throughTheDoor,
    ...rooms,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: NOT_SPEC },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
  },
};
