import { Inject, Injectable } from '@nestjs/common';
import {
  ProtocolError,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';
import { MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import type { ServedSkill } from './served-skill';
import { sha256Base64Url } from '../../kit/sha256';
import { SkillCatalog } from './skill-catalog';
import { SkillReadBudget } from './skill-read-budget';
import { SKILL_OPTIONS, type ResolvedSkillOptions } from './skill.options';
import {
  ANONYMOUS_PARTITION,
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
  private readonly budget: SkillReadBudget;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly visibility: McpOperationVisibility,
    private readonly partitions: CallerPartitions,
    @Inject(SKILL_OPTIONS) options: ResolvedSkillOptions,
    private readonly events: McpCoreEvents,
  ) {
    this.cacheFields = Object.freeze({ ...options.cacheHint });
    this.budget = new SkillReadBudget({
      capacity: options.limits.maxInFlightReadBytes,
      perPartition: options.limits.maxInFlightReadBytesPerCaller,
    });
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
    return this.pageAnswer('skills', page, sdk);
  }

  async get(
    params: McpMethodParams,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<McpMethodParams> {
    const uri = uriOf(params);
    const skill = this.catalog.skill(uri);
    if (!skill || !(await this.sees(skill, sdk, exchange))) throw skillNotFound(uri);
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
    if (!folder || !(await this.sees(folder.skill, sdk, exchange))) throw notADirectory(uri);
    const page = folder.children.page(cursor);
    if (this.events.watched) await this.served('resources/directory/read', uri, sdk, exchange);
    return this.pageAnswer('resources', page, sdk);
  }

  /** A skill file's contents; `undefined` (answered as a URI nobody serves) for anything else. */
  async read(
    uri: string,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<ReadResourceResult | undefined> {
    const file = this.catalog.file(uri);
    if (!file || !(await this.sees(file.skill, sdk, exchange))) return undefined;
    if (this.events.watched) await this.served('resources/read', uri, sdk, exchange);
    const { bytes } = file.contents;
    if (this.budget.counts(bytes))
      this.budget.reserve(await this.callerOf(sdk, exchange, uri), bytes, exchange.response);
    // The encoded text or blob is written as its bytes by the module's writers, and serializes to
    // the same JSON anywhere else: it stands for the string the result's type names.
    return { contents: [file.contents.entry as unknown as ReadResourceResult['contents'][number]] };
  }

  /**
   * Who a read is counted against: a digest of the caller's partition, named after the skill's
   * guards ran (a passport-style guard sets `req.user` there); callers the resolver cannot tell
   * apart are told apart by address, as the listen limits and the sessions do.
   */
  private async callerOf(sdk: ServerContext, exchange: HttpExchange, uri: string): Promise<string> {
    const partition = await this.partitions.resolve(
      createOperationContext(sdk, uri, exchange, undefined),
    );
    if (partition !== ANONYMOUS_PARTITION) return sha256Base64Url(partition);
    const address = exchange.request.ip || exchange.raw.socket?.remoteAddress || 'unknown';
    return sha256Base64Url(JSON.stringify([ANONYMOUS_PARTITION, address]));
  }

  /** A page of a list answer under `field`: its items, its next cursor if any, the cache fields. */
  private pageAnswer(
    field: 'skills' | 'resources',
    page: { readonly items: readonly unknown[]; readonly nextCursor?: string },
    sdk: ServerContext,
  ): McpMethodParams {
    return {
      [field]: page.items,
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
      ...this.cacheFieldsFor(sdk),
    };
  }

  /** Whether the caller may see `skill`: as `skills/list` and `resources/list` show it. */
  private sees(skill: ServedSkill, sdk: ServerContext, exchange: HttpExchange): Promise<boolean> {
    return this.visibility.sees(skill, skill.name, sdk, exchange);
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
