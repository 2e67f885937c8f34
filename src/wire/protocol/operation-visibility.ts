import { Inject, Injectable, Logger } from '@nestjs/common';
import { AUTH_OPTIONS, type AuthOptions } from '../../auth/auth.options';
import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import {
  DISCOVERY_OPTIONS,
  type DiscoveryOptions,
} from '../../operations/discovery/discovery.options';
import type { ListingPage } from '../../operations/discovery/listing-page';
import type { ToolEntry } from '../../operations/discovery/operation-entry.interface';
import type { ListedOperation, PagedListing } from '../../operations/discovery/paged-listing';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { McpHttpRefusal } from '../../kit/errors/mcp-http-refusal.error';
import { OperationHiddenError } from '../../kit/errors/operation-hidden.error';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import type { HttpExchange } from '../../pipeline/http-exchange';
import {
  OperationRunner,
  type OperationOutcome,
  type OperationRunInput,
  type RunnableOperation,
} from '../../pipeline/operation-runner';
import { GlobalGuards } from '../../pipeline/global-guards';
import { ownRequestParams } from '../../pipeline/own-request-params';
import { andThen, type MaybePromise } from '../../kit/maybe-promise';
import { OccasionalWarning } from '../../kit/occasional-warning';
import { isLaunchedCallerRequest } from '../../kit/launched-caller';
import { unknownOperation } from './unknown-operation';

/**
 * Lists per caller (`auth.lists: 'caller'`, the default): which entries a caller's lists show —
 * those its guards and scopes let through — and that an entry they hide answers every path as an
 * unknown one. The guards run alone: no interceptor, pipe or method. An entry whose guard refuses
 * or throws (a 401, a 429, a bug) is left out as if it did not exist; only the endpoint's own
 * authentication may answer a list 401: the built-in resource server before any guard, or — for a
 * credential nothing verified — the app's global guards refusing it on their own.
 * @internal
 */
@Injectable()
export class McpOperationVisibility {
  constructor(
    private readonly runner: OperationRunner,
    private readonly globalGuards: GlobalGuards,
    @Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions,
    @Inject(AUTH_OPTIONS) auth: AuthOptions,
  ) {
    this.tokenRequired = auth.resourceServer?.requireToken === true;
  }

  /** Whether the resource server answers callers without a token 401 (but for public operations). */
  private readonly tokenRequired: boolean;
  private readonly anonymousHiding = new OccasionalWarning(
    (message) => this.logger.warn(message),
    300_000,
  );
  private readonly logger = new Logger('McpModule');

  /**
   * The page `cursor` points at, of what this caller may call: with `auth.lists: 'public'` the
   * cached page; otherwise each scanned entry's guards and scopes run (not the method), one list
   * request at a time, and the page is assembled from the entries' cached JSON. A caller without a
   * token, where the resource server requires one, sees the public operations only. Any listing of
   * entries that carry guards and a profile pages this way (an extension's too).
   */
  page<T, E extends RunnableOperation & ListedOperation<T>>(
    listing: PagedListing<T, E>,
    cursor: string | undefined,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): MaybePromise<ListingPage<T>> {
    const tokenless = this.tokenless(exchange);
    const unfiltered = this.options.listVisibility === 'public';
    if (unfiltered && !tokenless && !listing.restricted) return listing.page(cursor);
    let hidden = 0;
    const count = (shown: boolean) => {
      if (!shown) hidden++;
      return shown;
    };
    const endpoint = this.endpointAuthentication(sdk, exchange);
    const page = listing.filteredPage(cursor, (operation) => {
      // A caller without a token, where the resource server requires one, sees public ones only.
      if (tokenless && !operation.profile.public) return count(false);
      // Lists for everyone still hide what a visibility predicate hides (tenancy).
      if (unfiltered && !(operation as { restricted?: boolean }).restricted) return true;
      return andThen(this.shows(operation, operation.name, sdk, exchange, endpoint), count);
    });
    if (tokenless || exchange.request.headers.authorization !== undefined) return page;
    return andThen(page, (answered) => {
      if (hidden > 0) this.reportAnonymousHiding(hidden);
      return answered;
    });
  }

  /**
   * Whether this caller may see one entry a request names (a skill, for `skills/get`, the reads
   * of its files and its folders): as a list shows it — anything but a pass of its guards means no,
   * so an entry the caller may not see answers exactly as one nobody serves. With
   * `auth.lists: 'public'` every entry is listed to everyone, and a refusal is answered as the
   * guard made it, as a tool call's is.
   */
  async sees(
    entry: RunnableOperation,
    target: string,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<boolean> {
    if (this.tokenless(exchange) && !entry.profile.public) return false;
    if (!entry.guardsHandler) return true;
    if (this.options.listVisibility === 'public') {
      await this.runner.authorize({
        operation: entry,
        target,
        params: {},
        args: {},
        http: exchange,
        sdk,
      });
      return true;
    }
    return this.shows(entry, target, sdk, exchange, this.endpointAuthentication(sdk, exchange));
  }

  /** Whether a caller's guards show `operation`; a 401 among them hides it unless `endpoint` refuses. */
  private shows(
    operation: RunnableOperation,
    target: string,
    sdk: ServerContext,
    exchange: HttpExchange,
    endpoint: (() => Promise<void>) | undefined,
  ): MaybePromise<boolean> {
    const verdict = this.runner.listingVerdict({
      operation,
      target,
      params: {},
      args: {},
      http: exchange,
      sdk,
    });
    return andThen(verdict, (said) =>
      said === 'unauthenticated' && endpoint ? endpoint().then(() => false) : said === 'shown',
    );
  }

  /**
   * For a request whose `Authorization` header nothing verified (no principal on `req.auth` from
   * the built-in resource server or bearer-auth middleware), the check that lets a bad or expired
   * credential get its 401 on a list too: the app's global guards alone — its authentication in
   * guard mode — run once, the first time an entry's guards answer 401, and their 401 answers the
   * request; otherwise that entry only is hidden (its guard's 401 speaks of that entry, and never
   * tells the caller it exists). `undefined` when there is no such credential.
   */
  private endpointAuthentication(
    sdk: ServerContext,
    exchange: HttpExchange,
  ): (() => Promise<void>) | undefined {
    const raw = exchange.raw as { headers: Record<string, unknown>; auth?: unknown };
    if (raw.headers.authorization === undefined || raw.auth !== undefined) return undefined;
    let checked: Promise<void> | undefined;
    return () =>
      (checked ??= this.globalGuards.refuseUnauthenticated(sdk.mcpReq.method, sdk, exchange));
  }

  /** A caller without a token, where the resource server requires one. */
  private tokenless(exchange: HttpExchange): boolean {
    return (
      this.tokenRequired &&
      (exchange.raw as { auth?: unknown }).auth === undefined &&
      !isLaunchedCallerRequest(exchange.raw)
    );
  }

  /**
   * A list asked without credentials whose guards hid operations looks exactly like broken
   * registration (an empty list, HTTP 200): say so in the log, at most every few minutes.
   */
  private reportAnonymousHiding(hidden: number): void {
    this.anonymousHiding.report(
      `An MCP list request without an Authorization header was answered with ${hidden} ` +
        'operation(s) hidden by their guards. If the client should be signed in, make it send its ' +
        'credentials; with auth.resourceServer such requests get the 401 challenge instead.',
    );
  }

  /**
   * Whether a refused call answers as for an unknown operation: its visibility predicate hid it
   * (`visibleTo`, whatever `auth.lists` says), or, with lists per caller, a guard's refusal
   * (-32003, not a step-up) of an operation the caller's list does not show. The guards run
   * once more to tell a guard's refusal from a `ForbiddenException` of the method itself.
   */
  async hidden(outcome: OperationOutcome, input: OperationRunInput): Promise<boolean> {
    if (outcome.kind === 'error' && outcome.error instanceof OperationHiddenError) return true;
    return (
      this.options.listVisibility === 'caller' &&
      outcome.kind === 'error' &&
      outcome.error.code === McpErrorCode.Forbidden &&
      !(outcome.error instanceof McpHttpRefusal) &&
      !(await this.runner.visible(input))
    );
  }

  /**
   * Runs a tool's guards for a request that will not run the tool itself (a divert, a 2025-era task
   * call): the operation context they produced, or what a call of the tool would have answered —
   * an unknown tool when the caller's lists hide it (a guard's refusal, -32003, not a step-up),
   * the guard's own error otherwise (a 401 challenge, a step-up).
   */
  async authorizeTool(
    tool: ToolEntry,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<McpOperationContext> {
    const input: OperationRunInput = {
      operation: tool,
      target: tool.name,
      params: ownRequestParams(exchange, sdk) ?? {},
      args: {},
      http: exchange,
      sdk,
    };
    try {
      return await this.runner.authorize(input);
    } catch (error) {
      const refused = { kind: 'error', error } as OperationOutcome;
      if (error instanceof ProtocolError && (await this.hidden(refused, input)))
        throw unknownOperation('tool', tool.name);
      throw error;
    }
  }
}
