/**
 * Preloaded (`-r`) into a bench server when `BENCH_NEST=12`: every `@nestjs/*` the server and the
 * module's sources require resolves from the Nest 12 install of the tests' Nest 12 leg
 * (`BENCH_NEST12_DIR`, made by `node scripts/nest12.mjs install`), so the same server runs on
 * Nest 12. Nest 12 is ESM, loaded through Node's require(esm); its peers (rxjs, reflect-metadata,
 * class-validator) come from the project's own node_modules, one copy each, as in an app.
 */
import Module from 'node:module';

const folder = process.env.BENCH_NEST12_DIR;
if (!folder) throw new Error('BENCH_NEST12_DIR is not set (bench/http.bench.ts sets it)');

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: object) => string;
const resolver = Module as unknown as { _resolveFilename: Resolve };
const resolveFilename = resolver._resolveFilename;
resolver._resolveFilename = function (request, parent, isMain, options) {
  return request.startsWith('@nestjs/')
    ? resolveFilename.call(this, request, parent, isMain, { ...options, paths: [folder] })
    : resolveFilename.call(this, request, parent, isMain, options);
};
