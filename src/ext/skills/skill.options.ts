import { isAbsolute, resolve } from 'node:path';
import type { CacheHint } from '@modelcontextprotocol/server';
import { SKILL_LIMITS } from '@modelcontextprotocol/server/ext/skills';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { booleanOption, objectOption, positiveInteger } from '../../extension-api';

/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): skills read from a folder
 * and from `@McpSkill()` methods, served per caller. See `docs/skills.md`.
 * @publicApi
 */
export interface McpSkillsOptions {
  /**
   * Serves the skills extension; `false` leaves it out (with `forRoot`, none of its providers is
   * created). Default `true` once the `skills` group is given; without it the extension is off.
   */
  enabled?: boolean;
  /**
   * A folder of skill folders, each with a `SKILL.md` (`skills/<name>/SKILL.md`), read once at
   * startup; a relative path is resolved against the working directory. Default: none (only
   * `@McpSkill()` methods serve skills).
   */
  directory?: string;
  /** Serves `resources/directory/read` of skill folders (`directoryRead: true`). Default `true`. */
  directoryRead?: boolean;
  /**
   * Cache hint (`ttlMs`, `cacheScope`) of `skills/list`, `skills/get` and directory reads on
   * 2026-07-28. Default `{ ttlMs: 0, cacheScope: 'private' }`. Skill files are `resources/read`
   * results: `cacheHints['resources/read']` applies to them.
   */
  cacheHint?: CacheHint;
  /** Skills served at once, from every source; more fail startup. Default 1,000. */
  maxSkills?: number;
  /** Files of one skill, `SKILL.md` included; more fail startup. Default and most 512 (the spec's). */
  maxFilesPerSkill?: number;
  /** Bytes of one skill's files together. Default and most 16,777,216 (16 MiB, the spec's). */
  maxSkillBytes?: number;
  /** Bytes of any one file. Default 4,194,304 (4 MiB). */
  maxFileBytes?: number;
  /** Bytes of every skill's files together, which the module holds in memory. Default 268,435,456 (256 MiB). */
  maxTotalBytes?: number;
  /**
   * Reads `directory` again when something in it changes and tells listening clients
   * (`notifications/resources/list_changed`); a folder that no longer loads keeps the skills
   * served before, and the problem is logged. For development. Default `false`.
   */
  watch?: boolean;
}

/** The bounds every skill is held to, whatever serves it. @internal */
export interface SkillLimits {
  readonly maxSkills: number;
  readonly maxFilesPerSkill: number;
  readonly maxSkillBytes: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

/** Skills options with defaults filled in and values checked. @internal */
export interface ResolvedSkillOptions {
  /** Whether the skills extension is served: the `skills` group is given and not turned off. */
  readonly enabled: boolean;
  /** The skills folder, absolute. */
  readonly directory: string | undefined;
  readonly directoryRead: boolean;
  readonly cacheHint: { readonly ttlMs: number; readonly cacheScope: 'public' | 'private' };
  readonly limits: SkillLimits;
  readonly watch: boolean;
}

/** Injection token of the resolved {@link ResolvedSkillOptions}. @internal */
export const SKILL_OPTIONS = Symbol('SkillOptions');

/** Fills the `skills` defaults and checks each value, naming the first bad option. @internal */
export function resolveSkillOptions(skills: McpSkillsOptions | undefined): ResolvedSkillOptions {
  objectOption('skills', skills);
  const enabled = skills !== undefined && booleanOption('skills.enabled', skills.enabled, true);
  return {
    enabled,
    directory: directoryOf(skills?.directory),
    directoryRead: booleanOption('skills.directoryRead', skills?.directoryRead, true),
    cacheHint: cacheHintOf(skills?.cacheHint),
    limits: {
      maxSkills: positiveInteger('skills.maxSkills', skills?.maxSkills, 1_000),
      maxFilesPerSkill: atMost(
        'skills.maxFilesPerSkill',
        positiveInteger('skills.maxFilesPerSkill', skills?.maxFilesPerSkill, SKILL_LIMITS.files),
        SKILL_LIMITS.files,
      ),
      maxSkillBytes: atMost(
        'skills.maxSkillBytes',
        positiveInteger('skills.maxSkillBytes', skills?.maxSkillBytes, SKILL_LIMITS.bytes),
        SKILL_LIMITS.bytes,
      ),
      maxFileBytes: positiveInteger('skills.maxFileBytes', skills?.maxFileBytes, 4_194_304),
      maxTotalBytes: positiveInteger('skills.maxTotalBytes', skills?.maxTotalBytes, 268_435_456),
    },
    watch: booleanOption('skills.watch', skills?.watch, false),
  };
}

function directoryOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new InvalidModuleOptionsError('skills.directory', 'must be a non-empty path');
  return isAbsolute(value) ? value : resolve(value);
}

function atMost(option: string, value: number, most: number): number {
  if (value > most)
    throw new InvalidModuleOptionsError(option, `must be at most ${most} (SEP-2640's bound)`);
  return value;
}

function cacheHintOf(value: unknown): ResolvedSkillOptions['cacheHint'] {
  const hint = objectOption('skills.cacheHint', value as CacheHint | undefined);
  const ttlMs = hint?.ttlMs ?? 0;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0)
    throw new InvalidModuleOptionsError('skills.cacheHint.ttlMs', 'must be an integer >= 0');
  const cacheScope = hint?.cacheScope ?? 'private';
  if (cacheScope !== 'public' && cacheScope !== 'private')
    throw new InvalidModuleOptionsError(
      'skills.cacheHint.cacheScope',
      'must be "public" or "private"',
    );
  return { ttlMs, cacheScope };
}
