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
      `Invalid MCP skill ${join(root, 'missing')}: cannot be read (ENOENT)`,
    );
  });

  it('two sources serving one name', async () => {
    await skillAt('guide', '---\nname: guide\ndescription: d\n---\n');
    const error = await startupError('express', {
      imports: [app({ directory: root }, [OneSkill])],
    });
    expect(error?.message).toContain(
      `Invalid MCP skill skill://guide/SKILL.md: two sources serve a skill of this name (OneSkill.guide(): guide and ${join(root, 'guide')})`,
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

  const listed = async (url: URL) => {
    const answer = await rawRound(url, 'skills/list', {});
    return (answer.body.result as { skills: { uri: string }[] }).skills.map((skill) => skill.uri);
  };

  it('serves what the folder holds after a change, and keeps the last good set when it breaks', async () => {
    const logger = new CapturingLogger();
    const server = await startTestServer(
      'express',
      { imports: [app({ directory: root, watch: true })] },
      '/mcp',
      { logger },
    );
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
});
