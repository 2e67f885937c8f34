import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { McpModule } from '../../../../src';
import { McpSkill } from '../../../../src/entry/skills';
import { CapturingLogger, newKeyring } from '../../../fixtures/sample-app';
import { startTestServer, startupError } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import { until } from '../../../utils/wait';

const { active, keys } = newKeyring(['k1']);
const KEYRING = { active, keys };

@Injectable()
class OneSkill {
  @McpSkill()
  guide() {
    return {
      name: 'guide',
      files: { 'SKILL.md': '---\nname: guide\ndescription: A guide.\n---\n' },
    };
  }
}

function app(skills: object | undefined, providers: object[] = []) {
  @Module({
    imports: [McpModule.forRoot({ keyring: KEYRING, ...(skills && { skills }) })],
    providers: providers as never[],
  })
  class SkillStartupModule {}
  return SkillStartupModule;
}

describe('skills that cannot be served fail startup, naming the file and the rule', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skills-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const skillAt = async (folder: string, markdown: string) => {
    await mkdir(join(root, folder), { recursive: true });
    await writeFile(join(root, folder, 'SKILL.md'), markdown);
  };

  it('a name unlike its folder', async () => {
    await skillAt('triage', '---\nname: triage-v2\ndescription: d\n---\n');
    const error = await startupError('express', { imports: [app({ directory: root })] });
    expect(error?.message).toContain(join(root, 'triage', 'SKILL.md'));
    expect(error?.message).toContain('must equal the skill\'s folder name ("triage")');
  });

  it('a folder without SKILL.md', async () => {
    await mkdir(join(root, 'empty'));
    await writeFile(join(root, 'empty', 'notes.md'), 'x');
    const error = await startupError('express', { imports: [app({ directory: root })] });
    expect(error?.message).toContain(join(root, 'empty'));
    expect(error?.message).toContain('SKILL.md');
  });

  it('a skills folder that does not exist', async () => {
    const error = await startupError('express', {
      imports: [app({ directory: join(root, 'missing') })],
    });
    expect(error?.message).toContain(
      `Invalid MCP skill "${join(root, 'missing')}": cannot be read (ENOENT)`,
    );
  });

  it('two sources serving one name', async () => {
    await skillAt('guide', '---\nname: guide\ndescription: d\n---\n');
    const error = await startupError('express', {
      imports: [app({ directory: root }, [OneSkill])],
    });
    expect(error?.message).toContain(
      `Invalid MCP skill "skill://guide/SKILL.md": two sources serve a skill of this name ("OneSkill.guide(): guide" and "${join(root, 'guide')}")`,
    );
  });

  it('more skills than skills.maxSkills', async () => {
    await skillAt('a', '---\nname: a\ndescription: d\n---\n');
    await skillAt('b', '---\nname: b\ndescription: d\n---\n');
    const error = await startupError('express', {
      imports: [app({ directory: root, maxSkills: 1 })],
    });
    expect(error?.message).toContain('more than 1 skills (skills.maxSkills)');
  });

  it('@McpSkill() without the skills option', async () => {
    const error = await startupError('express', { imports: [app(undefined, [OneSkill])] });
    expect(error?.message).toContain('OneSkill.guide() is decorated with @McpSkill()');
    expect(error?.message).toContain('set the "skills" option');
  });

  it('a folder name that would forge a log line or drive a terminal, escaped', async () => {
    // Red team IV, finding 8: the name was written raw into the startup error.
    const hostile = 'triage\u001b[2J\u001b[31m\nInvalid MCP skill forged: ok\u009b';
    await skillAt(hostile, '---\nname: triage\ndescription: d\n---\n');
    const error = await startupError('express', { imports: [app({ directory: root })] });
    const message = error?.message ?? '';
    expect(message).toContain(
      'must equal the skill\'s folder name ("triage\\u001b[2J\\u001b[31m\\nInvalid MCP skill forged: ok\\u009b")',
    );
    expect(message).toContain(
      `Invalid MCP skill ${JSON.stringify(join(root, hostile, 'SKILL.md')).replace('\u009b', '\\u009b')}:`,
    );
    // One line, and nothing a terminal acts on.
    // eslint-disable-next-line no-control-regex -- the point of the check
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('more folders than skills.maxFilesPerSkill, and folders nested deeper than skills.maxFolderDepth', async () => {
    // Red team IV, finding 9: 5,000 empty folders and 150 nested ones started and were listed.
    await skillAt('folders', '---\nname: folders\ndescription: d\n---\n');
    for (let index = 0; index < 5_000; index++)
      await mkdir(join(root, 'folders', `f${String(index).padStart(4, '0')}`));
    const tooMany = await startupError('express', { imports: [app({ directory: root })] });
    expect(tooMany?.message).toBe(
      `Invalid MCP skill "${join(root, 'folders')}": more than 512 files and folders (skills.maxFilesPerSkill)`,
    );
    await rm(join(root, 'folders'), { recursive: true });

    await skillAt('nested', '---\nname: nested\ndescription: d\n---\n');
    const levels = Array.from({ length: 150 }, (_, index) => `d${index}`);
    await mkdir(join(root, 'nested', ...levels), { recursive: true });
    const tooDeep = await startupError('express', { imports: [app({ directory: root })] });
    expect(tooDeep?.message).toBe(
      `Invalid MCP skill "${join(root, 'nested', ...levels.slice(0, 17))}": folders nested more than 16 deep (skills.maxFolderDepth)`,
    );
    // Within both bounds it is served, its deepest folder readable.
    await rm(join(root, 'nested', ...levels.slice(0, 16)), { recursive: true });
    await mkdir(join(root, 'nested', ...levels.slice(0, 16)), { recursive: true });
    const server = await startTestServer('express', { imports: [app({ directory: root })] });
    try {
      const deepest = `skill://nested/${levels.slice(0, 15).join('/')}`;
      const read = await rawRound(server.url, 'resources/directory/read', { uri: deepest });
      expect(read.body.result).toMatchObject({
        resources: [{ uri: `${deepest}/d15`, mimeType: 'inode/directory' }],
      });
    } finally {
      await server.close();
    }
  });

  it('a frontmatter whose YAML aliases expand past skills.maxFrontmatterBytes', async () => {
    // Red team IV, finding 10: 99 aliases of a 9,000-character anchor, 10 KB of YAML, were a
    // 901 KB entry in every skills/list and skills/get.
    const anchor = 'a'.repeat(9_000);
    const aliasesOf = (count: number) =>
      Array.from({ length: count }, (_, index) => `  k${index}: *big`).join('\n');
    const frontmatter = (count: number) =>
      `---\nname: aliases\ndescription: d\nbig: &big ${anchor}\nmore:\n${aliasesOf(count)}\n---\n`;
    await skillAt('aliases', frontmatter(99));
    const many = await startupError('express', { imports: [app({ directory: root })] });
    expect(many?.message).toContain(`Invalid MCP skill "${join(root, 'aliases', 'SKILL.md')}":`);
    expect(many?.message).toContain('Excessive alias count');
    await writeFile(join(root, 'aliases', 'SKILL.md'), frontmatter(20));
    const large = await startupError('express', { imports: [app({ directory: root })] });
    expect(large?.message).toBe(
      `Invalid MCP skill "${join(root, 'aliases', 'SKILL.md')}": the frontmatter takes more than 65536 bytes as JSON, YAML aliases expanded (skills.maxFrontmatterBytes)`,
    );
    await writeFile(join(root, 'aliases', 'SKILL.md'), frontmatter(3));
    const server = await startTestServer('express', { imports: [app({ directory: root })] });
    try {
      const got = await rawRound(server.url, 'skills/get', { uri: 'skill://aliases/SKILL.md' });
      const entry = (got.body.result as { skill: { frontmatter: { more: object } } }).skill;
      expect(entry.frontmatter.more).toEqual({ k0: anchor, k1: anchor, k2: anchor });
    } finally {
      await server.close();
    }
  });

  it('a file whose answer could never be sent within skills.maxInFlightReadBytesPerCaller', async () => {
    await skillAt('controls', '---\nname: controls\ndescription: d\n---\n');
    // 100 KB of U+0001: 600 KB of JSON once each is escaped as \u0001.
    await writeFile(join(root, 'controls', 'ones.txt'), Buffer.alloc(100_000, 1));
    const error = await startupError('express', {
      imports: [app({ directory: root, maxInFlightReadBytesPerCaller: 500_000 })],
    });
    expect(error?.message).toMatch(
      new RegExp(
        `^Invalid MCP skill "${join(root, 'controls', 'ones.txt')}": its resources/read answer would be 6000\\d\\d bytes of JSON, more than 500000 \\(skills.maxInFlightReadBytesPerCaller\\)$`,
      ),
    );
  });

  it('a spec bound past SEP-2640', async () => {
    const error = await startupError('express', {
      imports: [app({ directory: root, maxFilesPerSkill: 513 })],
    });
    expect(error?.message).toContain('skills.maxFilesPerSkill');
  });
});

describe('a server without the skills option', () => {
  it('declares no skills extension and answers skills/list -32601', async () => {
    const server = await startTestServer('express', { imports: [app(undefined)] });
    try {
      const listed = await rawRound(server.url, 'skills/list', {});
      expect((listed.body.error as { code: number }).code).toBe(-32601);
      const discovered = await rawRound(server.url, 'server/discover', {});
      expect(JSON.stringify(discovered.body)).not.toContain('io.modelcontextprotocol/skills');
    } finally {
      await server.close();
    }
  });
});

describe('a watched skills folder', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skills-watch-'));
    await mkdir(join(root, 'alpha'));
    await writeFile(join(root, 'alpha', 'SKILL.md'), '---\nname: alpha\ndescription: d\n---\n');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A server watching the folder, with the logger it writes to. */
  const watching = async () => {
    const logger = new CapturingLogger();
    const server = await startTestServer(
      'express',
      { imports: [app({ directory: root, watch: true })] },
      '/mcp',
      { logger },
    );
    return { logger, server };
  };

  const listed = async (url: URL) => {
    const answer = await rawRound(url, 'skills/list', {});
    return (answer.body.result as { skills: { uri: string }[] }).skills.map((skill) => skill.uri);
  };

  it('serves what the folder holds after a change, and keeps the last good set when it breaks', async () => {
    const { logger, server } = await watching();
    try {
      expect(await listed(server.url)).toEqual(['skill://alpha/SKILL.md']);
      await mkdir(join(root, 'beta'));
      await writeFile(join(root, 'beta', 'SKILL.md'), '---\nname: beta\ndescription: d\n---\n');
      await until(async () => (await listed(server.url)).includes('skill://beta/SKILL.md'));
      await writeFile(join(root, 'beta', 'SKILL.md'), '---\nname: gamma\ndescription: d\n---\n');
      await mkdir(join(root, 'delta'));
      await writeFile(join(root, 'delta', 'SKILL.md'), '---\nname: delta\ndescription: d\n---\n');
      // The broken set is never served: beta stays, delta does not arrive, and the log says why.
      const refused = await until(() =>
        logger.lines.find((line) => line.text.includes('was not served again')),
      );
      expect(refused.text).toContain('must equal the skill\'s folder name ("beta")');
      expect(await listed(server.url)).toEqual(['skill://alpha/SKILL.md', 'skill://beta/SKILL.md']);
    } finally {
      await server.close();
    }
  });

  it('logs a broken folder with its name escaped', async () => {
    const { logger, server } = await watching();
    try {
      const hostile = 'x\u001b]0;owned\u0007\n[Nest] 1  - LOG forged';
      await mkdir(join(root, hostile));
      await writeFile(join(root, hostile, 'SKILL.md'), '---\nname: x\ndescription: d\n---\n');
      const refused = await until(() =>
        logger.lines.find((line) => line.text.includes('was not served again')),
      );
      expect(refused.text).toContain('("x\\u001b]0;owned\\u0007\\n[Nest] 1  - LOG forged")');
      // eslint-disable-next-line no-control-regex -- the point of the check
      expect(refused.text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    } finally {
      await server.close();
    }
  });
});
