// Fails every suite of the Nest 12 leg unless the Nest packages it loads really are Nest 12.
const { readFileSync } = require('node:fs');

for (const name of [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  '@nestjs/testing',
]) {
  // Not `require(name + '/package.json')`: @nestjs/testing's exports map does not offer it.
  const entry = require.resolve(name).split(require('node:path').sep).join('/');
  const folder = entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`) + 1);
  const { version } = JSON.parse(
    readFileSync(`${folder}node_modules/${name}/package.json`, 'utf8'),
  );
  if (!version.startsWith('12.')) throw new Error(`the Nest 12 leg loaded ${name}@${version}`);
}
