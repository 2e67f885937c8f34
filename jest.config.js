/**
 * Unit tests: `src/**\/*.spec.ts`.
 * Transpile-only (isolatedModules) keeps runs fast; `npm run typecheck` does the type checking.
 * @type {import('jest').Config}
 */
module.exports = {
  rootDir: 'src',
  testRegex: '\\.spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }],
  },
};
