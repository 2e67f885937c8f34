import type { ServerContext } from '@modelcontextprotocol/server';
import type { McpInputDeclaration } from '../input/mcp-input-declaration';
import type { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import type { DetachedTaskStep } from '../auth/identity/detached-task-step';
import type {
  McpHttpRequest,
  McpProgressReporter,
  McpOperationContext,
} from '../input/mcp-operation-context.interface';
import type { McpTaskContext } from '../input/mcp-task-context.interface';
import type { McpOperationKind } from '../input/mcp-operation-kind';
import type { ArgumentsValidator } from './validation/arguments-validator.interface';
import type { OpenedRound } from './opened-round';
import type { InnermostOutcome } from './innermost-outcome';
import type { HttpExchange } from './http-exchange';
import type {
  RequestStateFailureDetail,
  RequestStateFailureReason,
} from '../request-state/sealing/request-state-protection.error';

/** What an operation declares that the library's own pipeline steps need. @internal */
export interface OperationCallProfile {
  readonly kind: McpOperationKind;
  readonly declarations: readonly McpInputDeclaration[];
  readonly stateMode: McpRequestStateMode;
  /** Each incoming framework state is accepted once. */
  readonly singleUse: boolean;
  /** `ctx.elicit()` and friends are served from a ledger in framework state. */
  readonly replay: boolean;
  /** OAuth scopes a caller's token needs, checked every round before the method. */
  readonly scopes: readonly string[];
  /** Served to callers without a token when the resource server requires one. */
  readonly public: boolean;
  readonly argumentsValidator: ArgumentsValidator | undefined;
  /** Argument fields an audit trail may record in clear (`audit.arguments`); none when absent. */
  readonly auditArguments?: readonly string[];
  /**
   * The digest of the operation's definition (`operation-definition.ts`): what sealed state and
   * task records bind. Absent for what is not an operation (a skill, the session gate).
   */
  readonly definition?: string;
}

/**
 * What a call running as (or possibly becoming) a task sees instead of its request's own.
 * @internal
 */
export interface TaskCallScope {
  readonly task: McpTaskContext;
  /** The flow of the request that created the task, when known. */
  readonly flowId?: string;
  /** Set when the call runs a task's step: the creating request's span context, if it was traced. */
  readonly step?: { readonly trace: string | undefined };
  readonly signal: AbortSignal;
  readonly progress?: McpProgressReporter;
}

/** Why a call's incoming state was refused: safe to log and to count. @internal */
export interface StateRejection {
  readonly reason: RequestStateFailureReason;
  readonly detail?: RequestStateFailureDetail;
  /** The refused state's flow, when it proved authentic. */
  readonly flowId?: string;
}

/** The HTTP side of a call: what `switchToHttp()` shows the application's enhancers. @internal */
export type CallHttp = Pick<HttpExchange, 'request' | 'raw' | 'response'>;

/** For `completion/complete`: the argument being completed and its partial value. @internal */
export interface CompletionRequest {
  readonly argument: string;
  readonly value: string;
}

/** What an {@link OperationCall} is made of: what the client sent, and where it came from. @internal */
export interface OperationCallInit {
  /** `visibility`: only the guards, to decide whether a list shows the operation. */
  readonly purpose: 'operation' | 'completion' | 'guards' | 'visibility';
  readonly profile: OperationCallProfile;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  /** The request's own params: exact numbers, `__proto__` and friends kept as data. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The arguments as sent (resource-template variables for resources). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly http: CallHttp;
  /** Set when a task step runs away from the request that created or resumed its task. */
  readonly detached?: DetachedTaskStep;
  readonly sdk: ServerContext;
  readonly task?: TaskCallScope;
  readonly completion?: CompletionRequest;
  /** What the application's guards and interceptors see: no answers, no state. */
  readonly context: McpOperationContext;
}

/**
 * One MCP operation call, as a record of values. What the client sent never changes; each library
 * step that produces something for the steps after it writes its own slot exactly once (argument
 * validation, the opened round, the innermost outcome) and a second write is a bug that throws.
 * It travels by position — the fourth handler argument, after the HTTP request, response and
 * `next` — so no step needs an ambient store to find it.
 * @internal
 */
export class OperationCall {
  private validatedArgs: Readonly<Record<string, unknown>> | undefined;
  private openedRound: OpenedRound | undefined;
  private innermostOutcome: InnermostOutcome | undefined;
  private stateRejection: StateRejection | undefined;

  readonly purpose: OperationCallInit['purpose'];
  readonly profile: OperationCallProfile;
  readonly target: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly args: Readonly<Record<string, unknown>>;
  readonly http: CallHttp;
  readonly detached: DetachedTaskStep | undefined;
  readonly sdk: ServerContext;
  readonly task: TaskCallScope | undefined;
  readonly completion: CompletionRequest | undefined;
  readonly context: McpOperationContext;

  constructor(init: OperationCallInit) {
    this.purpose = init.purpose;
    this.profile = init.profile;
    this.target = init.target;
    this.params = init.params;
    this.args = init.args;
    this.http = init.http;
    this.detached = init.detached;
    this.sdk = init.sdk;
    this.task = init.task;
    this.completion = init.completion;
    this.context = init.context;
  }

  /** The HTTP request the call came on, as the host framework sees it. */
  get request(): McpHttpRequest {
    return this.http.request;
  }

  /** The arguments as validated, once argument validation has run; else as sent. */
  get methodArgs(): Readonly<Record<string, unknown>> {
    return this.validatedArgs ?? this.args;
  }

  /** What the method sees: the opened round's context once state protection opened it. */
  get methodContext(): McpOperationContext {
    return this.openedRound?.context ?? this.context;
  }

  get opened(): OpenedRound | undefined {
    return this.openedRound;
  }

  /** What the innermost library step recorded: what reaches the wire, whatever outer interceptors did. */
  get recorded(): InnermostOutcome | undefined {
    return this.innermostOutcome;
  }

  /** Argument validation's result. @internal */
  recordValidatedArgs(args: Readonly<Record<string, unknown>>): void {
    if (this.validatedArgs !== undefined) throw written('validated arguments');
    this.validatedArgs = args;
  }

  /** State protection's opened round. @internal */
  recordOpenedRound(round: OpenedRound): void {
    if (this.openedRound !== undefined) throw written('opened round');
    this.openedRound = round;
  }

  /** Why state protection refused the call's state, when it did (for the logs, spans and metrics). */
  get rejection(): StateRejection | undefined {
    return this.stateRejection;
  }

  /** State protection's refusal of the incoming state. @internal */
  recordRejection(rejection: StateRejection): void {
    if (this.stateRejection !== undefined) throw written('rejection');
    this.stateRejection = rejection;
  }

  /** The innermost step's outcome. @internal */
  recordOutcome(outcome: InnermostOutcome): void {
    if (this.innermostOutcome !== undefined) throw written('outcome');
    this.innermostOutcome = outcome;
  }
}

function written(slot: string): Error {
  return new Error(`An MCP operation call's ${slot} was recorded twice`);
}

/** Position of the {@link OperationCall} among a handler's arguments. @internal */
export const OPERATION_CALL_INDEX = 3;

/** The call among an enhancer's arguments, if it serves an MCP operation. @internal */
export function operationCallOf(args: readonly unknown[]): OperationCall | undefined {
  const call = args[OPERATION_CALL_INDEX];
  return call instanceof OperationCall ? call : undefined;
}
