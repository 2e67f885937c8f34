import type { Type } from '@nestjs/common';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { McpInputDeclarationSpec } from '../../input/mcp-input-declaration';
import type { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import type { JsonSchemaObject } from '../../kit/json-schema-object';
import type { McpStandardSchema } from '../../pipeline/validation/standard-schema';

/** Input and state options shared by every operation decorator. @publicApi */
export interface McpInputOptions {
  /**
   * OAuth scopes the caller's token must grant (`req.auth.scopes`, or `scope`/`scopes`/`scp` of
   * `req.user`), checked on every round after your guards and before your interceptors, pipes and
   * the method: nobody signed in gets HTTP 401 with a challenge naming them, a token without one
   * of them HTTP 403 `insufficient_scope` (step-up). Callers without them do not see the operation
   * in lists. Advertised in `scopes_supported` unless `auth.scopesSupported` is set.
   *
   * @example
   * ```ts
   * @McpTool({ description: 'Moves money', scopes: ['payments:write'] })
   * ```
   */
  scopes?: string[];
  /**
   * Served to callers without a bearer token when the built-in resource server requires one
   * (`auth.resourceServer`, whose `requireToken` is on by default): such a caller finds the
   * operation in lists and may call it; every other operation answers it 401 with the challenge.
   * Your guards still run. An operation cannot be public and declare `scopes`. Default `false`.
   *
   * @example
   * ```ts
   * @McpTool({ description: 'Server status', public: true })
   * ```
   */
  public?: boolean;
  /** What the operation may ask the client for (same as repeated `@McpMayRequestInput`). */
  mayRequestInput?: McpInputDeclarationSpec[];
  /** Who owns the state carried between rounds. Default `NONE`. */
  requestState?: McpRequestStateMode;
  /**
   * Accept each incoming state once: the first retry that presents a state consumes it (after it
   * is verified, before the method runs), and any other presentation of the same state — another
   * JSON-RPC id, concurrently or later, until the state expires — gets `-32602 Invalid request
   * state`. Only with `requestState: FRAMEWORK_PROTECTED` (otherwise startup fails with
   * `InvalidOperationDefinitionError`). Default: the module's `requestState.singleUse` (`false`).
   *
   * @example
   * ```ts
   * @McpTool({ description: 'Deletes a file after the user confirms', requestState: McpRequestStateMode.FRAMEWORK_PROTECTED, singleUse: true })
   * ```
   */
  singleUse?: boolean;
  /**
   * Serve `ctx.elicit()`, `ctx.elicitUrl()`, `ctx.createMessage()` and `ctx.listRoots()` from a
   * ledger of the flow's questions and answers, sealed in framework-protected state: the method
   * runs from the top every round and `await`s its answers (see `docs/replay.md`). Implies
   * `requestState: FRAMEWORK_PROTECTED` (another mode fails startup) and needs at least one
   * `@McpMayRequestInput` declaration. Default `false`.
   *
   * @example
   * ```ts
   * @McpTool({ description: 'Signs a user up', replay: true })
   * @McpMayRequestInput({ type: 'elicitation.form' })
   * ```
   */
  replay?: boolean;
  /**
   * What an audit trail (the `audit` option, docs/audit.md) may record of the arguments in clear:
   * the fields named here, by their top-level name. Every other argument is recorded only as part
   * of the SHA-256 digest of the arguments. A field the secret-field policy names a secret (a
   * password, PIN, token or key) fails startup: it is never recorded, in any mode.
   *
   * @example
   * ```ts
   * @McpTool({ description: 'Moves money', audit: { arguments: ['amount', 'to'] } })
   * ```
   */
  audit?: { readonly arguments?: readonly string[] };
}

/**
 * Options of `@McpTool`.
 *
 * @publicApi
 */
export interface McpToolOptions extends McpInputOptions {
  /** Tool name (1–64 of `A-Z a-z 0-9 _ . / -`). Defaults to the method name. */
  name?: string;
  /** Human-readable title. */
  title?: string;
  /** What the tool does; shown to the model. Required and non-empty. */
  description: string;
  /**
   * What the arguments must be: a class-validator DTO, or a Standard Schema validator (zod 4,
   * valibot, arktype). Its JSON Schema becomes `inputSchema` and the arguments are validated with
   * it before the method runs. Defaults to the type of the `@McpArgs()` parameter when that is a
   * class.
   */
  input?: Type<unknown> | McpStandardSchema;
  /** A raw JSON Schema for the arguments, advertised exactly as written (wins over `input`). */
  inputSchema?: JsonSchemaObject;
  /** JSON Schema of `structuredContent`. When set, a plain object returned by the tool becomes `structuredContent`. */
  outputSchema?: JsonSchemaObject;
  /** Behaviour hints for clients. */
  annotations?: ToolAnnotations;
  /**
   * Whether calls may run as tasks (the `io.modelcontextprotocol/tasks` extension). Default
   * `forbidden`. See `docs/tasks.md`.
   */
  taskSupport?: McpTaskSupport;
  /** When a task-opted call becomes a task. Default `immediate`. */
  taskCreation?: McpTaskCreation;
  /** Lifetime of this tool's tasks, in ms; at most the module's `tasks.maxTtlMs`. Default `tasks.ttlMs`. */
  taskTtlMs?: number;
  /** Extra `_meta` advertised with the tool. */
  _meta?: Record<string, unknown>;
}

/** One argument of a prompt. @publicApi */
export interface McpPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** Suggests completions for one prompt argument or resource-template variable. @publicApi */
export type McpCompleter = (
  value: string,
  context: { arguments: Record<string, string>; request: McpOperationContext },
) => string[] | Promise<string[]>;

/**
 * Options of `@McpPrompt`.
 *
 * @publicApi
 */
export interface McpPromptOptions extends McpInputOptions {
  /** Prompt name. Defaults to the method name. */
  name?: string;
  title?: string;
  /** What the prompt is for. Required and non-empty. */
  description: string;
  /** Declared arguments. Defaults to the properties of `input` (required ones marked required). */
  arguments?: McpPromptArgument[];
  /**
   * What the arguments must be (all values arrive as strings): a class-validator DTO, or a
   * Standard Schema validator (zod 4, valibot, arktype).
   */
  input?: Type<unknown> | McpStandardSchema;
  /** Completion providers by argument name, for `completion/complete`. */
  complete?: Record<string, McpCompleter>;
  _meta?: Record<string, unknown>;
}

/**
 * Options of `@McpResource`. Give exactly one of `uri` (a fixed resource, listed by `resources/list`)
 * or `uriTemplate` (RFC 6570, listed by `resources/templates/list`; its variables reach the method
 * through `@McpArgs()`).
 *
 * @publicApi
 */
export interface McpResourceOptions extends McpInputOptions {
  uri?: string;
  uriTemplate?: string;
  /** Resource name. Defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
  annotations?: Record<string, unknown>;
  /** Completion providers by template variable name. */
  complete?: Record<string, McpCompleter>;
  _meta?: Record<string, unknown>;
}

/** What an operation decorator stores on its method. @internal */
export type McpOperationMetadata =
  | { kind: 'tool'; options: McpToolOptions }
  | { kind: 'prompt'; options: McpPromptOptions }
  | { kind: 'resource'; options: McpResourceOptions };

/**
 * Whether a tool's calls may run as tasks: `forbidden` (the default) never; `optional` when the
 * client declares the tasks extension on the request, synchronously otherwise; `required` only as
 * a task (a client without the extension gets -32021).
 *
 * @publicApi
 */
export type McpTaskSupport = 'forbidden' | 'optional' | 'required';

/**
 * When a task-opted call becomes a task: `immediate` (the default) before the handler runs, so
 * the client gets the task at once; `deferred` when the handler calls `ctx.task.start()`, so the
 * handler can first gather input in synchronous rounds (or answer at once).
 *
 * @publicApi
 */
export type McpTaskCreation = 'immediate' | 'deferred';
