import { resolveSkillOptions } from './skill.options';

describe('resolveSkillOptions', () => {
  it('fills the bounds of folders, frontmatter and reads in flight', () => {
    expect(resolveSkillOptions({}).limits).toMatchObject({
      maxFilesPerSkill: 512,
      maxFolderDepth: 16,
      maxFrontmatterBytes: 65_536,
      maxInFlightReadBytes: 67_108_864,
      maxInFlightReadBytesPerCaller: 33_554_432,
    });
  });

  it("keeps a caller's share within the total, by default and when given", () => {
    expect(resolveSkillOptions({ maxInFlightReadBytes: 1_000_000 }).limits).toMatchObject({
      maxInFlightReadBytes: 1_000_000,
      maxInFlightReadBytesPerCaller: 1_000_000,
    });
    expect(() =>
      resolveSkillOptions({
        maxInFlightReadBytes: 1_000_000,
        maxInFlightReadBytesPerCaller: 2_000_000,
      }),
    ).toThrow(
      '"skills.maxInFlightReadBytesPerCaller": must be at most 1000000 (skills.maxInFlightReadBytes)',
    );
  });

  it.each(['maxFolderDepth', 'maxFrontmatterBytes', 'maxInFlightReadBytes'])(
    'refuses a %s that is not a positive integer',
    (option) => {
      expect(() => resolveSkillOptions({ [option]: 0 })).toThrow(`skills.${option}`);
    },
  );
});
