import { Inject, Injectable } from '@nestjs/common';
import {
  ProtocolError,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';
import { MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import { SkillCatalog } from './skill-catalog';
import { SKILL_OPTIONS, type ResolvedSkillOptions } from './skill.options';
import { SkillVisibility } from './skill-visibility';
import {
  CallerPartitions,
  createOperationContext,
  McpCoreEvents,
  McpOperationVisibility,
  type HttpExchange,
  type McpMethodParams,
} from '../../extension-api';

function invalidParams(): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, 'Invalid params');
}

/** A request's `uri`: a string, or -32602. */
function uriOf(params: McpMethodParams): string {
  if (typeof params.uri !== 'string') throw invalidParams();
  return params.uri;
}

/** A request's `cursor`: a string, or none; anything else is -32602. */
function cursorOf(params: McpMethodParams): string | undefined {
  if (params.cursor !== undefined && typeof params.cursor !== 'string') throw invalidParams();
  return params.cursor;
}

/** What `skills/get` answers for a URI no skill is served at — and for one the caller may not see. */
function skillNotFound(uri: string): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, 'Skill not found', { uri: clip(uri) });
}

/** What a directory read answers for a URI that is no folder served — or one the caller may not see. */
function notADirectory(uri: string): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, 'Not a directory resource', {
    uri: clip(uri),
  });
}

/**
 * The skills extension's wire: `skills/list` (paged per caller like the operation lists),
 * `skills/get`, `resources/directory/read` and `resources/read` of skill files. A skill the caller
 * may not see answers every one of these exactly as a URI nobody serves.
 * @internal
 */
@Injectable()
export class SkillMethods {
  private readonly cacheFields: Readonly<Record<string, unknown>>;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly visibility: McpOperationVisibility,
    private readonly skillVisibility: SkillVisibility,
    @Inject(SKILL_OPTIONS) options: ResolvedSkillOptions,
    private readonly events: McpCoreEvents,
    private readonly partitions: CallerPartitions,
  ) {
    this.cacheFields = Object.freeze({ ...options.cacheHint });
  }

  async list(
    params: McpMethodParams,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<McpMethodParams> {
    const page = await this.visibility.page(
      this.catalog.listing(),
      cursorOf(params),
      sdk,
      exchange,
    );
    return {
      skills: page.items,
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
      ...this.cacheFieldsFor(sdk),
    };
  }

  async get(
    params: McpMethodParams,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<McpMethodParams> {
    const uri = uriOf(params);
    const skill = this.catalog.skill(uri);
    if (!skill || !(await this.skillVisibility.sees(skill, sdk, exchange)))
      throw skillNotFound(uri);
    if (this.events.watched) await this.served('skills/get', uri, sdk, exchange);
    return { skill: skill.listing, ...this.cacheFieldsFor(sdk) };
  }

  async readDirectory(
    params: McpMethodParams,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<McpMethodParams> {
    const uri = uriOf(params);
    const cursor = cursorOf(params);
    const folder = this.catalog.folder(uri);
    if (!folder || !(await this.skillVisibility.sees(folder.skill, sdk, exchange)))
      throw notADirectory(uri);
    const page = folder.children.page(cursor);
    if (this.events.watched) await this.served('resources/directory/read', uri, sdk, exchange);
    return {
      resources: page.items,
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
      ...this.cacheFieldsFor(sdk),
    };
  }

  /** A skill file's contents; `undefined` (answered as a URI nobody serves) for anything else. */
  async read(
    uri: string,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<ReadResourceResult | undefined> {
    const file = this.catalog.file(uri);
    if (!file || !(await this.skillVisibility.sees(file.skill, sdk, exchange))) return undefined;
    if (this.events.watched) await this.served('resources/read', uri, sdk, exchange);
    return { contents: [file.contents] };
  }

  /** Tells the core's observers (an audit trail) which caller a skill's `uri` was served to. */
  private async served(
    method: string,
    uri: string,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<void> {
    const context = createOperationContext(sdk, uri, exchange, undefined);
    const principal = await this.partitions.resolve(context);
    this.events.publish({ kind: 'skill', method, uri, principal });
  }

  /** `ttlMs` and `cacheScope`, which 2026-07-28 results carry (2025-era ones have no such fields). */
  private cacheFieldsFor(sdk: ServerContext): Readonly<Record<string, unknown>> {
    const envelope = sdk.mcpReq.envelope as Record<string, unknown> | undefined;
    return envelope?.[MCP_META_KEYS.protocolVersion] === MCP_PROTOCOL_VERSION
      ? this.cacheFields
      : {};
  }
}
