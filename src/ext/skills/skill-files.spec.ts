import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSkillFolder, skillFilesOf } from './skill-files';
import type { SkillLimits } from './skill.options';

const LIMITS: SkillLimits = {
  maxSkills: 10,
  maxFilesPerSkill: 4,
  maxFolderDepth: 2,
  maxSkillBytes: 100,
  maxFileBytes: 60,
  maxTotalBytes: 1_000,
  maxFrontmatterBytes: 1_000,
  maxInFlightReadBytes: 1_000_000,
  maxInFlightReadBytesPerCaller: 1_000_000,
};

describe('skill files', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skill-files-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads every file and folder of a skill, hidden ones left out', async () => {
    await mkdir(join(root, 'references/empty'), { recursive: true });
    await mkdir(join(root, '.git'));
    await writeFile(join(root, 'SKILL.md'), 'md');
    await writeFile(join(root, 'references/FORMS.md'), 'forms');
    await writeFile(join(root, '.DS_Store'), 'x');
    await writeFile(join(root, '.git/HEAD'), 'x');
    const set = await readSkillFolder(root, LIMITS);
    expect([...set.files.keys()]).toEqual(['SKILL.md', 'references/FORMS.md']);
    expect([...set.folders].sort()).toEqual(['references', 'references/empty']);
  });

  it('refuses a symlink, naming it', async () => {
    await writeFile(join(root, 'SKILL.md'), 'md');
    await symlink('/etc/passwd', join(root, 'passwd'));
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      `Invalid MCP skill "${join(root, 'passwd')}": symlinks`,
    );
  });

  it('holds a folder to the file, count and byte bounds', async () => {
    await writeFile(join(root, 'big.md'), 'x'.repeat(61));
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      'larger than 60 bytes (skills.maxFileBytes)',
    );
    await rm(join(root, 'big.md'));
    for (const name of ['a', 'b', 'c', 'd', 'e']) await writeFile(join(root, name), 'x');
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      'more than 4 files and folders (skills.maxFilesPerSkill)',
    );
    await rm(join(root, 'e'));
    await rm(join(root, 'd'));
    await rm(join(root, 'c'));
    await writeFile(join(root, 'c'), 'x'.repeat(59));
    await writeFile(join(root, 'b'), 'x'.repeat(59));
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      'more than 100 bytes of files (skills.maxSkillBytes)',
    );
  });

  it('counts folders, empty ones too, with the files, and bounds how deep they nest', async () => {
    await writeFile(join(root, 'SKILL.md'), 'md');
    for (const name of ['a', 'b', 'c']) await mkdir(join(root, name));
    await expect(readSkillFolder(root, LIMITS)).resolves.toBeDefined();
    await mkdir(join(root, 'd'));
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      `Invalid MCP skill "${root}": more than 4 files and folders (skills.maxFilesPerSkill)`,
    );
    await rm(join(root, 'd'), { recursive: true });
    await rm(join(root, 'c'), { recursive: true });
    await mkdir(join(root, 'a/x/y'), { recursive: true });
    await expect(readSkillFolder(root, LIMITS)).rejects.toThrow(
      `Invalid MCP skill "${join(root, 'a/x/y')}": folders nested more than 2 deep (skills.maxFolderDepth)`,
    );
    expect(() =>
      skillFilesOf('App.skill()', { 'SKILL.md': 'md', 'a/x/y/z.md': 'x' }, LIMITS),
    ).toThrow(
      'Invalid MCP skill "App.skill()": file "a/x/y/z.md": folders nested more than 2 deep (skills.maxFolderDepth)',
    );
    expect(() =>
      skillFilesOf('App.skill()', { 'SKILL.md': 'md', 'a/x/1.md': 'x', 'b/2.md': 'x' }, LIMITS),
    ).toThrow(
      'Invalid MCP skill "App.skill()": more than 4 files and folders (skills.maxFilesPerSkill)',
    );
  });

  it('checks the paths an application gives, and serves a copy of its bytes', () => {
    for (const path of ['/abs.md', 'a/../b.md', 'a//b.md', './a.md', '.hidden/a.md'])
      expect(() => skillFilesOf('App.skill()', { 'SKILL.md': 'md', [path]: 'x' }, LIMITS)).toThrow(
        `Invalid MCP skill "App.skill()": file "${path}": `,
      );
    const bytes = new Uint8Array([1, 2, 3]);
    const set = skillFilesOf('App.skill()', { 'SKILL.md': 'md', 'data/a.bin': bytes }, LIMITS);
    bytes[0] = 9;
    expect([...(set.files.get('data/a.bin') ?? [])]).toEqual([1, 2, 3]);
    expect([...set.folders]).toEqual(['data']);
  });
});
