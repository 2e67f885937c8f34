// The dependency rule holds a new extension to the core's door without anyone listing it: a
// folder under src/ext/ that imports the core past src/extension-api.ts fails `npm run lint:deps`.
// Checked on a small tree of its own in a temporary folder, with the project's own rules file.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** A tree with the project's rules and `files` (path → source); what depcruise says of it. */
function cruise(files) {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-rules-'));
  try {
    copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
    );
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    const run = spawnSync(
      process.execPath,
      [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
      { cwd: dir, encoding: 'utf8' },
    );
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CORE = {
  'src/kit/leaf.ts': 'export const leaf = 1;\n',
  'src/pipeline/runner.ts': "import { leaf } from '../kit/leaf';\nexport const run = leaf;\n",
  'src/extension-api.ts': "export { run } from './pipeline/runner';\n",
};

test('an extension that uses only the door and the kit passes', () => {
  const result = cruise({
    ...CORE,
    'src/ext/good/good.extension.ts':
      "import { run } from '../../extension-api';\nimport { leaf } from '../../kit/leaf';\nexport const good = run + leaf;\n",
  });
  assert.equal(result.ok, true, result.output);
});

test('a new extension that reaches past the door fails, though no list names it', () => {
  const result = cruise({
    ...CORE,
    'src/ext/probe/probe.extension.ts':
      "import { run } from '../../pipeline/runner';\nexport const probe = run;\n",
  });
  assert.equal(result.ok, false);
  assert.match(result.output, /ext-probe-through-the-door/);
});

test("an extension may import another only when its definition's dependsOn names it", () => {
  const files = {
    ...CORE,
    'src/ext/base/base.extension.ts': 'export const base = 1;\n',
  };
  const without = cruise({
    ...files,
    'src/ext/user/user.extension.ts':
      "import { base } from '../base/base.extension';\nexport const user = base;\n",
  });
  assert.equal(without.ok, false);
  assert.match(without.output, /ext-user-through-the-door/);
  const declared = cruise({
    ...files,
    'src/ext/user/user.extension.ts':
      "import { base } from '../base/base.extension';\nexport const user = { dependsOn: ['base'], base };\n",
  });
  assert.equal(declared.ok, true, declared.output);
});

test('the core may not import an extension nor the door', () => {
  const result = cruise({
    ...CORE,
    'src/ext/good/good.extension.ts': 'export const good = 1;\n',
    'src/pipeline/reach.ts':
      "import { good } from '../ext/good/good.extension';\nimport { run } from '../extension-api';\nexport const reach = good + run;\n",
  });
  assert.equal(result.ok, false);
  assert.match(result.output, /core-never-imports-an-extension/);
  assert.match(result.output, /only-extensions-use-the-door/);
});
