import { skillFrontmatter } from './skill-frontmatter';

const skill = (yaml: string, body = '\nBody.\n') => `---\n${yaml}\n---\n${body}`;
const MAX_BYTES = 65_536;

describe('skillFrontmatter', () => {
  it('parses YAML 1.2 into the JSON the entry carries, BOM and CRLF allowed', () => {
    const markdown =
      '\uFEFF' +
      skill('name: pdf-tools\ndescription: Fill PDF forms.\nmetadata:\n  version: "2"').replaceAll(
        '\n',
        '\r\n',
      );
    expect(skillFrontmatter(markdown, 'pdf-tools', MAX_BYTES)).toEqual({
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
      '"frontmatter.when" is not a JSON value',
    ],
  ])('names the rule broken by %s', (_case, markdown, rule) => {
    const outcome = skillFrontmatter(markdown, 'pdf-tools', MAX_BYTES);
    expect(outcome.problem).toContain(rule);
  });

  it('bounds what YAML aliases expand to, as JSON, and how many there are', () => {
    // The red team's shape: one 9,000-character anchor, 99 aliases — 10 KB of YAML, 901 KB of JSON.
    const anchor = 'a'.repeat(9_000);
    const aliases = Array.from({ length: 99 }, (_, index) => `  k${index}: *big`).join('\n');
    const expanded = skill(
      `name: pdf-tools\ndescription: d\nbig: &big ${anchor}\nmore:\n${aliases}`,
    );
    expect(expanded.length).toBeLessThan(12_000);
    expect(skillFrontmatter(expanded, 'pdf-tools', MAX_BYTES).problem).toContain(
      'Excessive alias count',
    );
    // Fewer aliases, each within the parser's count: what they expand to is still bounded.
    const twenty = aliases.split('\n').slice(0, 20).join('\n');
    expect(
      skillFrontmatter(
        skill(`name: pdf-tools\ndescription: d\nbig: &big ${anchor}\nmore:\n${twenty}`),
        'pdf-tools',
        MAX_BYTES,
      ).problem,
    ).toBe(
      'the frontmatter takes more than 65536 bytes as JSON, YAML aliases expanded (skills.maxFrontmatterBytes)',
    );
    const few = skill('name: pdf-tools\ndescription: &d Fill forms.\nmetadata:\n  a: *d\n  b: *d');
    expect(skillFrontmatter(few, 'pdf-tools', MAX_BYTES)).toEqual({
      frontmatter: {
        name: 'pdf-tools',
        description: 'Fill forms.',
        metadata: { a: 'Fill forms.', b: 'Fill forms.' },
      },
    });
    const many = Array.from({ length: 40 }, (_, index) => `  k${index}: *d`).join('\n');
    expect(
      skillFrontmatter(
        skill(`name: pdf-tools\ndescription: &d Fill forms.\nmetadata:\n${many}`),
        'pdf-tools',
        MAX_BYTES,
      ).problem,
    ).toContain('Excessive alias count');
  });

  it('counts the frontmatter as the entry carries it: its JSON, not its YAML', () => {
    const markdown = skill(`name: pdf-tools\ndescription: d\nnotes: "${'\\u0001'.repeat(100)}"`);
    // 100 characters of YAML-escaped U+0001 are 600 bytes of JSON.
    expect(skillFrontmatter(markdown, 'pdf-tools', 600).problem).toContain(
      'more than 600 bytes as JSON',
    );
    expect(skillFrontmatter(markdown, 'pdf-tools', 700).problem).toBeUndefined();
  });

  it('quotes and escapes the names it puts in a rule', () => {
    const outcome = skillFrontmatter(skill('name: x\ndescription: d'), 'x\u001b[2J\ny', MAX_BYTES);
    expect(outcome.problem).toBe(
      'the frontmatter "name" ("x") must equal the skill\'s folder name ("x\\u001b[2J\\ny")',
    );
  });
});
