import { DOCS_COMPANIONS } from '../../fixtures/docs-companions';
import { docsTsBlocks, typeErrors, writeDocsModule } from '../../utils/docs-code';

/**
 * The examples readers copy whole, compiled by the TypeScript compiler as they are written, with
 * the project's strict options: the suites that run them (readme-example, getting-started-docs,
 * docs-recipes) go through ts-jest's transpiler, which reports no type error — a duplicate member
 * or a property that does not exist ran, or failed only at run time.
 */
const EXAMPLES: ReadonlyArray<[page: string, heading: string]> = [
  ['README.md', 'A tool that asks before it acts'],
  ['docs/getting-started.md', 'Your first tool'],
  ['docs/getting-started.md', 'Operations'],
  ['docs/getting-started.md', 'Arguments: a DTO, a Standard Schema, or JSON Schema'],
  ['docs/skills.md', 'Skills your providers build'],
  ['docs/runtime-operations.md', 'Registering a tool'],
  ['docs/stdio.md', 'The entry point'],
];

describe('the whole examples of the docs', () => {
  it('compile as written', () => {
    const files = EXAMPLES.map(([page, heading], index) => {
      const [code] = docsTsBlocks(page, heading);
      if (code === undefined) throw new Error(`${page} "${heading}" has no ts block`);
      return writeDocsModule('compiled', `example-${index}`, code, DOCS_COMPANIONS);
    });
    expect(typeErrors(files)).toEqual([]);
  }, 180_000);
});
