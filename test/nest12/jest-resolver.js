// Jest resolver of the Nest 12 leg: `@nestjs/*` (and their subpaths) resolve from the Nest 12
// install that scripts/nest12.mjs names in NESTJS_MCP_NEST12_DIR, whoever requires them (the
// tests, the library, @nestjs/throttler); everything else resolves as usual. Nest 12's own
// imports of its peers (rxjs, reflect-metadata, class-validator…) find the project's copies,
// because the install omits peers.
const dir = process.env.NESTJS_MCP_NEST12_DIR;
if (!dir) throw new Error('NESTJS_MCP_NEST12_DIR is not set: run `npm run test:e2e:nest12`');

/** @type {(request: string, options: import('jest-resolve').ResolverOptions) => string} */
module.exports = (request, options) =>
  options.defaultResolver(
    request,
    request.startsWith('@nestjs/') ? { ...options, basedir: dir } : options,
  );
