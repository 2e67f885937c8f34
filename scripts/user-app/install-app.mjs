// Lays out the user app (scripts/pack-consumer/user-app) as `nest new` would have made it for one
// Nest major, installs the packed tarball and the app's dependencies from the npm registry with a
// plain `npm install`, and compiles it as `nest build` does (tsc -p tsconfig.build.json).
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { locked, node, npm, ROOT } from '../consumer-app.mjs';
import { nestNewProject } from '../pack-consumer/user-app/nest-new.mjs';

const SOURCE = join(ROOT, 'scripts/pack-consumer/user-app/src');
const PROJECT_LOCK = join(ROOT, 'package-lock.json');
/** Nest's own packages, at the versions the Nest major's lockfile pins. */
const NEST_PACKAGES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  '@nestjs/passport',
];
/** Everything else the app imports, at the project's versions. */
const APP_PACKAGES = [
  'reflect-metadata',
  'rxjs',
  'class-validator',
  'class-transformer',
  'passport',
  'passport-http-bearer',
  '@types/passport-http-bearer',
  '@types/express',
];
// What `npm install jose` gives an app today (ESM only since jose 6; the package itself depends on
// jose 5, so the app holds two copies, as real apps do).
const APP_JOSE = 'jose@6.2.19';

/** Every .ts file under `dir`. */
function typeScriptFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typeScriptFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Makes the user app for `consumer` (an entry of NEST_CONSUMERS) in `appDir` with `tarball`
 * installed, and compiles it; resolves with npm's output.
 */
export function installUserApp(consumer, appDir, tarball) {
  const project = nestNewProject(consumer.nest);
  cpSync(SOURCE, join(appDir, 'src'), { recursive: true });
  // The source is written with `.js` relative imports (the Nest 12 ESM templates' style); the Nest
  // 11 templates import without an extension.
  for (const file of typeScriptFiles(join(appDir, 'src'))) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text.replace(/(from '\.{1,2}\/[^']+)\.js'/g, `$1${project.relativeImportExtension}'`),
    );
  }
  const manifest = {
    name: `user-app-nest${consumer.nest}`,
    version: '0.0.1',
    private: true,
    license: 'UNLICENSED',
    ...project.manifest,
    scripts: { build: 'tsc -p tsconfig.build.json', 'start:prod': 'node dist/main' },
  };
  writeFileSync(join(appDir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(appDir, 'tsconfig.json'), JSON.stringify(project.tsconfig, null, 2));
  writeFileSync(
    join(appDir, 'tsconfig.build.json'),
    JSON.stringify(project.tsconfigBuild, null, 2),
  );
  const installed = npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      ...NEST_PACKAGES.map((name) => locked(consumer.lockfile, name)),
      ...APP_PACKAGES.map((name) => locked(PROJECT_LOCK, name)),
      APP_JOSE,
      project.typescript ? `typescript@${project.typescript}` : locked(PROJECT_LOCK, 'typescript'),
      `@types/node@${project.typesNode}`,
    ],
    appDir,
  );
  node([join(appDir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], appDir);
  return installed;
}
