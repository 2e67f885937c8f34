import { skillFrontmatter } from './skill-frontmatter';

const skill = (yaml: string, body = '\nBody.\n') => `---\n${yaml}\n---\n${body}`;

describe('skillFrontmatter', () => {
  it('parses YAML 1.2 into the JSON the entry carries, BOM and CRLF allowed', () => {
    const markdown =
      '\uFEFF' +
      skill('name: pdf-tools\ndescription: Fill PDF forms.\nmetadata:\n  version: "2"').replaceAll(
        '\n',
        '\r\n',
      );
    expect(skillFrontmatter(markdown, 'pdf-tools')).toEqual({
      frontmatter: {
        name: 'pdf-tools',
        description: 'Fill PDF forms.',
        metadata: { version: '2' },
      },
    });
  });

  it.each([
    ['no frontmatter', 'Just markdown.\n', 'must begin with a "---" line'],
    ['no closing line', '---\nname: a\n', 'no closing "---" line'],
    ['broken YAML', skill('name: [unclosed'), 'not valid YAML'],
    ['a list', skill('- a\n- b'), 'must be a YAML mapping'],
    ['an upper-case name', skill('name: PDF\ndescription: d'), '"name" must be 1-64 lowercase'],
    ['a double hyphen', skill('name: pdf--tools\ndescription: d'), '"name" must be 1-64 lowercase'],
    [
      'a 65-character name',
      skill(`name: ${'a'.repeat(65)}\ndescription: d`),
      '"name" must be 1-64',
    ],
    [
      'a name unlike the folder',
      skill('name: other\ndescription: d'),
      'must equal the skill\'s folder name ("pdf-tools")',
    ],
    ['no description', skill('name: pdf-tools'), '"description" must be a non-empty string'],
    [
      'a blank description',
      skill('name: pdf-tools\ndescription: "  "'),
      '"description" must be a non-empty string',
    ],
    [
      'a 1,025-character description',
      skill(`name: pdf-tools\ndescription: ${'d'.repeat(1025)}`),
      'at most 1,024 characters',
    ],
    [
      'non-string metadata',
      skill('name: pdf-tools\ndescription: d\nmetadata:\n  version: 2'),
      '"metadata" must map strings to strings',
    ],
    [
      'a reserved metadata key',
      skill('name: pdf-tools\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y'),
      'reserved for MCP extensions',
    ],
    [
      'a value JSON cannot carry',
      skill('name: pdf-tools\ndescription: d\nwhen: .inf'),
      'frontmatter.when is not a JSON value',
    ],
  ])('names the rule broken by %s', (_case, markdown, rule) => {
    const outcome = skillFrontmatter(markdown, 'pdf-tools');
    expect(outcome.problem).toContain(rule);
  });
});
