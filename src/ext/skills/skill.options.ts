import { isAbsolute, resolve } from 'node:path';
import type { CacheHint } from '@modelcontextprotocol/server';
import { SKILL_LIMITS } from '@modelcontextprotocol/server/ext/skills';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import {
  booleanOption,
  objectOption,
  positiveInteger,
  positiveIntegers,
} from '../../extension-api';

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
  /**
   * Files and folders of one skill together, `SKILL.md` included; more fail startup. Default and
   * most 512 (the spec's bound on files).
   */
  maxFilesPerSkill?: number;
  /** How deep folders nest in one skill (`a/b` is 2); deeper fails startup. Default 16. */
  maxFolderDepth?: number;
  /** Bytes of one skill's files together. Default and most 16,777,216 (16 MiB, the spec's). */
  maxSkillBytes?: number;
  /** Bytes of any one file. Default 4,194,304 (4 MiB). */
  maxFileBytes?: number;
  /**
   * Bytes of every skill's files together. The module holds each file JSON-encoded (about its size
   * for text, 4/3 for bytes). Default 268,435,456 (256 MiB).
   */
  maxTotalBytes?: number;
  /**
   * Bytes of a `SKILL.md`'s frontmatter as JSON, YAML aliases expanded: what every `skills/list`
   * and `skills/get` entry of the skill carries. More fail startup. Default 65,536 (64 KiB).
   */
  maxFrontmatterBytes?: number;
  /**
   * Bytes of skill files being sent at once (each answer counted by its contents' JSON: escaped
   * text or base64, from the read until its response ends; answers of at most 64 KiB are not
   * counted). A read past it answers the retryable -32000. Default 67,108,864 (64 MiB).
   */
  maxInFlightReadBytes?: number;
  /**
   * The same, for one caller (its partition; an anonymous one by address), and less for the heaviest
   * callers once the total is three-quarters full. A file whose answer is larger fails startup, as it
   * could never be sent. Default 33,554,432 (32 MiB), at most `maxInFlightReadBytes`.
   */
  maxInFlightReadBytesPerCaller?: number;
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
  readonly maxFolderDepth: number;
  readonly maxSkillBytes: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxFrontmatterBytes: number;
  readonly maxInFlightReadBytes: number;
  readonly maxInFlightReadBytesPerCaller: number;
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
      ...positiveIntegers('skills', skills, {
        maxFileBytes: 4_194_304,
        maxTotalBytes: 268_435_456,
        maxFolderDepth: 16,
        maxFrontmatterBytes: 65_536,
      }),
      ...inFlightReadBytesOf(skills),
    },
    watch: booleanOption('skills.watch', skills?.watch, false),
  };
}

/** The in-flight read bounds: the caller's share at most the total (and by default within it). */
function inFlightReadBytesOf(
  skills: McpSkillsOptions | undefined,
): Pick<SkillLimits, 'maxInFlightReadBytes' | 'maxInFlightReadBytesPerCaller'> {
  const total = positiveInteger(
    'skills.maxInFlightReadBytes',
    skills?.maxInFlightReadBytes,
    67_108_864,
  );
  const perCaller = atMost(
    'skills.maxInFlightReadBytesPerCaller',
    positiveInteger(
      'skills.maxInFlightReadBytesPerCaller',
      skills?.maxInFlightReadBytesPerCaller,
      Math.min(33_554_432, total),
    ),
    total,
    'skills.maxInFlightReadBytes',
  );
  return { maxInFlightReadBytes: total, maxInFlightReadBytesPerCaller: perCaller };
}

function directoryOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new InvalidModuleOptionsError('skills.directory', 'must be a non-empty path');
  return isAbsolute(value) ? value : resolve(value);
}

function atMost(option: string, value: number, most: number, bound = "SEP-2640's bound"): number {
  if (value > most)
    throw new InvalidModuleOptionsError(option, `must be at most ${most} (${bound})`);
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
