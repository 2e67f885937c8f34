import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import {
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from '@modelcontextprotocol/server/ext/skills';
import { quoted } from '../../kit/quoted';
import { InvalidSkillError } from './invalid-skill.error';
import type { ServedSkill } from './served-skill';
import { SkillCatalog } from './skill-catalog';
import { SkillFolderWatch } from './skill-folder-watch';
import { SkillLoader } from './skill-loader';
import { SkillMethods } from './skill-methods';
import { SkillShelf } from './skill-shelf';
import {
  resolveSkillOptions,
  SKILL_OPTIONS,
  type McpSkillsOptions,
  type ResolvedSkillOptions,
} from './skill.options';
import { SKILL_URI_PREFIX } from './skill-uri';
import {
  McpExplorer,
  McpExtensionMarks,
  McpMethodTable,
  McpNotifier,
  McpOperationRegistry,
  McpResourceReaders,
  McpServerCapabilities,
} from '../../extension-api';
import { defineMcpExtension, type McpExtension } from '../../extension-api';

/**
 * Installs the skills extension (`io.modelcontextprotocol/skills`, SEP-2640) into the core's
 * seams — `skills/list`, `skills/get` and `resources/directory/read` for both eras, `resources/read`
 * of `skill://` files, the `SKILL.md` entries of `resources/list`, its capability entry — and, once
 * the application's providers exist, loads every skill (a bad one fails startup). Idle unless the
 * `skills` option is given (with `forRootAsync`, whose options are not known when the module is
 * composed).
 * @internal
 */
@Injectable()
export class McpSkillsInstaller implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('McpModule');
  private provided: ServedSkill[] = [];
  private watch: SkillFolderWatch | undefined;

  constructor(
    @Inject(SKILL_OPTIONS) private readonly options: ResolvedSkillOptions,
    private readonly methods: McpMethodTable,
    private readonly readers: McpResourceReaders,
    private readonly capabilities: McpServerCapabilities,
    private readonly marks: McpExtensionMarks,
    private readonly skills: SkillMethods,
    private readonly loader: SkillLoader,
    private readonly shelf: SkillShelf,
    private readonly notifier: McpNotifier,
    private readonly registry: McpOperationRegistry,
    // Unused but for its place: depending on the explorer puts this installer's bootstrap after
    // the explorer's where Nest 12 runs the hooks level by level (Nest 11 runs them side by side,
    // where awaiting `registry.explored()` orders them).
    _explorer: McpExplorer,
  ) {}

  onModuleInit(): void {
    if (!this.options.enabled) return;
    const skills = this.skills;
    const bothEras = { legacy: true };
    this.marks.claim(SKILLS_EXTENSION_ID);
    this.methods.register(
      SKILLS_LIST_METHOD,
      (p, sdk, http) => skills.list(p, sdk, http),
      bothEras,
    );
    this.methods.register(SKILLS_GET_METHOD, (p, sdk, http) => skills.get(p, sdk, http), bothEras);
    if (this.options.directoryRead)
      this.methods.register(
        RESOURCES_DIRECTORY_READ_METHOD,
        (p, sdk, http) => skills.readDirectory(p, sdk, http),
        bothEras,
      );
    this.readers.add(SKILL_URI_PREFIX, (uri, sdk, http) => skills.read(uri, sdk, http));
    // Skill files are resources (resources/read); the core declares the capability, and says so.
    this.capabilities.require({ resources: {} });
    this.capabilities.declareExtension(
      SKILLS_EXTENSION_ID,
      this.options.directoryRead ? { directoryRead: true } : {},
      bothEras,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.enabled) return;
    // Skills may be built from the operations (a guide to the tools), and may not take their URIs.
    await this.registry.explored();
    this.provided = await this.loader.fromMethods();
    this.shelf.serve([...this.provided, ...(await this.loader.fromFolder())]);
    this.logger.log(`Serving ${this.shelf.count()} skill(s) (${SKILLS_EXTENSION_ID})`);
    const folder = this.options.directory;
    if (this.options.watch && folder !== undefined)
      this.watch = new SkillFolderWatch(folder, () => this.reloadFolder());
  }

  onModuleDestroy(): void {
    this.watch?.close();
  }

  /** Reads the watched folder again; a folder that no longer loads keeps what was served. */
  private async reloadFolder(): Promise<void> {
    try {
      this.shelf.serve([...this.provided, ...(await this.loader.fromFolder())]);
    } catch (error) {
      const why =
        error instanceof InvalidSkillError ? error.message : quoted((error as Error).message);
      this.logger.error(`The skills folder changed but was not served again: ${why}`);
      return;
    }
    this.notifier.resourcesChanged();
  }
}

/** The skills extension's providers, which join the `McpModule` that composes it. */
const SKILLS_EXTENSION_PROVIDERS: Provider[] = [
  SkillCatalog,
  SkillMethods,
  SkillLoader,
  SkillShelf,
  McpSkillsInstaller,
];

/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640, docs/skills.md): the `skills` option, off
 * unless given.
 * @internal
 */
export const skillsExtension: McpExtension<'skills', McpSkillsOptions> = defineMcpExtension<
  'skills',
  McpSkillsOptions,
  ResolvedSkillOptions
>({
  name: 'skills',
  options: { key: 'skills', token: SKILL_OPTIONS, resolve: resolveSkillOptions },
  enabledBy: (options) => options !== undefined && options.enabled !== false,
  providers: () => SKILLS_EXTENSION_PROVIDERS,
});
