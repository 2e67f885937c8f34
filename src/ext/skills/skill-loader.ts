import { basename, resolve } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ExternalContextCreator } from '../../kit/nest-internals';
import { buildServedSkill } from './build-served-skill';
import { InvalidSkillError } from './invalid-skill.error';
import { MCP_SKILL_METADATA, type McpSkillOptions } from './mcp-skill.decorator';
import type { ServedSkill, SkillAccess } from './served-skill';
import { readSkillFolder, skillFilesOf, skillFoldersIn, type SkillFileSet } from './skill-files';
import { SKILL_OPTIONS, type ResolvedSkillOptions } from './skill.options';
import {
  DISCOVERY_OPTIONS,
  discoveredMethods,
  noStepsProfile,
  OperationPipelineFactory,
  scopesOf,
  type DiscoveryOptions,
  type OperationCallProfile,
} from '../../extension-api';

/**
 * A skill folder's files; a folder the filesystem refuses (gone, unreadable, changed while read)
 * fails naming it and the error's code — never with the system's message, which quotes the path raw.
 */
async function readFolder(
  folder: string,
  limits: ResolvedSkillOptions['limits'],
  returnedBy = '',
): Promise<SkillFileSet> {
  try {
    return await readSkillFolder(folder, limits);
  } catch (error) {
    if (error instanceof InvalidSkillError) throw error;
    throw new InvalidSkillError(
      folder,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})${returnedBy}`,
    );
  }
}

/** What a skill's guards check beyond the guards themselves: its scopes, nothing else. */
function skillProfile(scopes: readonly string[]): OperationCallProfile {
  return noStepsProfile('resource', scopes);
}

/**
 * Reads the skills of every source and builds them as they will be served: the `skills.directory`
 * folder (each folder in it a skill, seen by whoever the app's global guards let through), and
 * each `@McpSkill()` method (run once; its guards and scopes decide who sees its skills). A skill
 * that breaks a rule or a bound fails, naming it.
 * @internal
 */
@Injectable()
export class SkillLoader {
  private readonly logger = new Logger('McpModule');
  private readonly pipelines: OperationPipelineFactory;
  /** Who sees the folder's skills: what the app's global guards let through. */
  private readonly folderAccess: SkillAccess;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    contextCreator: ExternalContextCreator,
    @Inject(SKILL_OPTIONS) private readonly options: ResolvedSkillOptions,
    @Inject(DISCOVERY_OPTIONS) private readonly discoveryOptions: DiscoveryOptions,
  ) {
    this.pipelines = new OperationPipelineFactory(contextCreator);
    this.folderAccess = {
      profile: skillProfile([]),
      guardsHandler: this.pipelines.forGuards(this, 'folderSkills'),
    };
  }

  /**
   * The method the folder's skills are guarded as: it has no guards of its own, so the app's
   * global guards alone decide (never called).
   */
  folderSkills(): void {
    // Only its (absent) enhancers matter.
  }

  /** The skills of `skills.directory`; none without it. */
  async fromFolder(): Promise<ServedSkill[]> {
    const root = this.options.directory;
    if (root === undefined) return [];
    let names: string[];
    try {
      names = await skillFoldersIn(root);
    } catch (error) {
      if (error instanceof InvalidSkillError) throw error;
      throw new InvalidSkillError(
        root,
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const skills: ServedSkill[] = [];
    for (const name of names) {
      const set = await readFolder(resolve(root, name), this.options.limits);
      skills.push(
        buildServedSkill(
          set,
          name,
          this.folderAccess,
          this.discoveryOptions.listPageSize,
          this.options.limits,
        ),
      );
    }
    return skills;
  }

  /** The skills of every `@McpSkill()` method, each method run once. */
  async fromMethods(): Promise<ServedSkill[]> {
    const skills: ServedSkill[] = [];
    const methods = discoveredMethods(this.discovery, this.scanner);
    for (const { wrapper, instance, methodName, method } of methods) {
      const options = this.reflector.get<McpSkillOptions | undefined>(MCP_SKILL_METADATA, method);
      if (!options) continue;
      const where = `${instance.constructor.name}.${methodName}()`;
      if (!wrapper.isDependencyTreeStatic()) {
        this.logger.warn(
          `${where} serves no skill: MCP skills must come from statically scoped providers`,
        );
        continue;
      }
      const access: SkillAccess = {
        profile: skillProfile(scopesOf(where, options.scopes)),
        guardsHandler: this.pipelines.forGuards(instance, methodName),
      };
      const returned: unknown = await method.call(instance);
      for (const source of Array.isArray(returned) ? returned : [returned])
        skills.push(await this.fromSource(where, source, access));
    }
    return skills;
  }

  private async fromSource(
    where: string,
    source: unknown,
    access: SkillAccess,
  ): Promise<ServedSkill> {
    const pageSize = this.discoveryOptions.listPageSize;
    const given = (source ?? {}) as Partial<Record<'name' | 'files' | 'directory', unknown>>;
    if (typeof given.directory === 'string' && given.directory !== '') {
      const folder = resolve(given.directory);
      const set = await readFolder(folder, this.options.limits, `, returned by ${where}`);
      return buildServedSkill(set, basename(folder), access, pageSize, this.options.limits);
    }
    if (typeof given.name === 'string' && given.files !== null && typeof given.files === 'object') {
      const set = skillFilesOf(
        `${where}: ${given.name}`,
        given.files as Record<string, string | Uint8Array>,
        this.options.limits,
      );
      return buildServedSkill(set, given.name, access, pageSize, this.options.limits);
    }
    throw new InvalidSkillError(
      where,
      'must return { directory } or { name, files } (or a list of them)',
    );
  }
}
