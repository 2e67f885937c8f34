// Run in an app that installed the tarball: prints, per entry point, the names its CommonJS
// exports have and an ESM `import *` of it lacks (Node's cjs-module-lexer did not see them).
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/package.json`);
const missing = {};
for (const entry of [
  'nestjs-mcp',
  'nestjs-mcp/redis',
  'nestjs-mcp/testing',
  'nestjs-mcp/extension',
  'nestjs-mcp/runtime',
  'nestjs-mcp/stdio',
  'nestjs-mcp/audit',
]) {
  const esm = await import(entry);
  const names = Object.keys(require(entry)).filter((name) => name !== '__esModule');
  missing[entry] = { exports: names.length, missing: names.filter((name) => !(name in esm)) };
}
console.log(JSON.stringify(missing));
