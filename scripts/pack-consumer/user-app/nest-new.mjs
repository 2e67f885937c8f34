// The project files `nest new` writes, per Nest major, as the user-app test
// (scripts/user-app-test.mjs) lays them out: package.json's module type, tsconfig.json and
// tsconfig.build.json exactly as in @nestjs/schematics' application templates with the answers a
// user gets by default — Nest 11: @nestjs/schematics 11.1.0, template `ts` (CommonJS, not strict);
// Nest 12: @nestjs/schematics 12.0.13, template `ts-esm` ("type": "module", strict). The one change:
// the Nest 12 template names `vitest/globals` in `types` for its Vitest specs, which this app does
// not have. The TypeScript and @types/node majors are the ones the templates ask for.

/** `nest new` for Nest 11 (@nestjs/schematics 11.1.0, `ts`, `--strict` not given). */
const NEST_11 = {
  manifest: {},
  typescript: '5.9.3', // the template's ^5.7.3
  typesNode: '24.19.4', // the template's ^24.0.0
  tsconfig: {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      resolvePackageJsonExports: true,
      esModuleInterop: true,
      isolatedModules: true,
      declaration: true,
      removeComments: true,
      emitDecoratorMetadata: true,
      experimentalDecorators: true,
      allowSyntheticDefaultImports: true,
      target: 'ES2023',
      sourceMap: true,
      outDir: './dist',
      baseUrl: './',
      incremental: true,
      skipLibCheck: true,
      strictNullChecks: true,
      forceConsistentCasingInFileNames: true,
      noImplicitAny: false,
      strictBindCallApply: false,
      noFallthroughCasesInSwitch: false,
    },
  },
  tsconfigBuild: {
    extends: './tsconfig.json',
    exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
  },
  // Relative imports as the Nest 11 templates write them: without an extension.
  relativeImportExtension: '',
};

/** `nest new` for Nest 12 (@nestjs/schematics 12.0.13, `ts-esm`, the default; strict by default). */
const NEST_12 = {
  manifest: { type: 'module' },
  typescript: undefined, // the template's ^6.0.2: the project's own TypeScript 6 (package-lock.json)
  typesNode: '24.19.4', // the template's ^24.0.0
  tsconfig: {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      resolvePackageJsonExports: true,
      esModuleInterop: true,
      isolatedModules: true,
      declaration: true,
      removeComments: true,
      emitDecoratorMetadata: true,
      experimentalDecorators: true,
      allowSyntheticDefaultImports: true,
      target: 'ES2023',
      sourceMap: true,
      outDir: './dist',
      rootDir: '.',
      incremental: true,
      skipLibCheck: true,
      strict: true,
      strictPropertyInitialization: false,
      types: ['node'],
    },
  },
  tsconfigBuild: {
    extends: './tsconfig.json',
    compilerOptions: { rootDir: './src' },
    include: ['src'],
    exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
  },
  relativeImportExtension: '.js',
};

/** What `nest new` makes for Nest `major` (11 or 12). */
export function nestNewProject(major) {
  if (major === 11) return NEST_11;
  if (major === 12) return NEST_12;
  throw new Error(`no nest new template for Nest ${major}`);
}
