import { docsCode, loadGenerated } from './utils/docs-code';

/*
 * The unit-test recipe of docs/pipeline.md ("Unit-testing a handler"), taken from the page as
 * written, against the README's "A tool that asks before it acts" example as written (the recipe's
 * `./file.tools`): the page's own `it` registers in this suite and runs here.
 */
describe("docs/pipeline.md's unit test of the README's deleteFile", () => {
  loadGenerated('file.tools', docsCode('README.md', '## A tool that asks before it acts'));
  loadGenerated('unit-test-recipe', docsCode('docs/pipeline.md', '## Unit-testing a handler'));
});
