import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';
import { internalError } from '../kit/errors/internal-error';
import { missingCapabilities } from '../input/client-capability-requirements';
import {
  checkInputRequestPolicy,
  INPUT_REQUEST_POLICY,
  type InputRequestPolicy,
} from '../input/input-request-policy';
import type { McpInputDeclaration } from '../input/mcp-input-declaration';
import type { McpInputRequest } from '../input/mcp-input-request';
import { McpInputRequirement } from '../input/mcp-input-requirement.enum';
import { undeclaredInputMessage } from '../input/undeclared-input.message';
import { clip } from '../kit/clip';
import { andThen, type MaybePromise } from '../kit/maybe-promise';
import { validateAdvertisedArguments } from './arguments-validation.step';
import { EmittedRound } from './emitted-round';
import { LibraryInterceptor, refusal } from './library-interceptor';
import type { OperationCall } from './operation-call';

/** Each operation's `REQUIRED` input types, found once (its declarations never change). */
const requiredTypes = new WeakMap<readonly McpInputDeclaration[], McpInputRequest['type'][]>();

function requiredTypesOf(declarations: readonly McpInputDeclaration[]): McpInputRequest['type'][] {
  let types = requiredTypes.get(declarations);
  if (types === undefined) {
    types = declarations
      .filter((declaration) => declaration.requirement === McpInputRequirement.REQUIRED)
      .map((declaration) => declaration.type);
    requiredTypes.set(declarations, types);
  }
  return types;
}

function describeMissing(required: ClientCapabilities): string {
  return Object.entries(required as Record<string, Record<string, unknown>>)
    .map(([name, sub]) =>
      Object.keys(sub).length > 0
        ? Object.keys(sub)
            .map((key) => `${name}.${key}`)
            .join(', ')
        : name,
    )
    .join(', ');
}

/**
 * Gates an operation on the client capabilities its `@McpMayRequestInput` declarations need:
 * `REQUIRED` ones before anything else of the call runs, on every round (no state is opened, no
 * pipe or method runs); `CONDITIONAL` ones when the handler emits such a request. All missing
 * capabilities are reported in one -32021 (HTTP 400). What the handler emits must also be
 * declared and pass the module's safety policy (no secrets in forms, safe URLs); either failing is
 * a server bug, answered with a bare -32603 and logged. The outermost of the module's two
 * interceptors, so it records what the round emitted once every check passed.
 * @internal
 */
@Injectable()
export class CapabilityGatingInterceptor extends LibraryInterceptor {
  private readonly logger = new Logger('McpModule');

  constructor(@Inject(INPUT_REQUEST_POLICY) private readonly policy: InputRequestPolicy) {
    super();
  }

  /** Validates the arguments (when advertised) first, then gates: one link of Nest's chain for both. */
  around(call: OperationCall, proceed: () => Promise<unknown>): MaybePromise<unknown> {
    return andThen(validateAdvertisedArguments(call), () => {
      this.checkRequired(call);
      return proceed().then((returned) => this.checkEmitted(call, returned));
    });
  }

  private checkRequired(call: OperationCall): void {
    const required = requiredTypesOf(call.profile.declarations);
    if (required.length > 0) this.assertSupported(call, required);
  }

  /** Checks and records what the round emitted; any other result passes untouched. */
  private checkEmitted(call: OperationCall, returned: unknown): unknown {
    if (!(returned instanceof EmittedRound)) return returned;
    const requests = [...returned.requests];
    const undeclared = requests.filter(
      ([, request]) =>
        !call.profile.declarations.some((declaration) => declaration.type === request.type),
    );
    if (undeclared.length > 0) {
      this.logger.error(undeclaredInputMessage(call.context.method, call.target, undeclared));
      throw refusal(call, internalError());
    }
    this.assertSupported(
      call,
      requests.map(([, request]) => request.type),
    );
    for (const [key, request] of requests) this.checkPolicy(call, key, request);
    call.recordOutcome({ kind: 'input_required', wire: returned.wire });
    return returned.wire;
  }

  private checkPolicy(call: OperationCall, key: string, request: McpInputRequest): void {
    try {
      checkInputRequestPolicy(request, this.policy);
    } catch (error) {
      this.logger.error(
        `MCP ${call.context.method} "${clip(call.target)}" emitted input request "${clip(key)}", which the safety policy refuses: ${(error as Error).message}`,
      );
      throw refusal(call, internalError());
    }
  }

  private assertSupported(call: OperationCall, types: McpInputRequest['type'][]): void {
    const missing = missingCapabilities(call.context.clientCapabilities, types);
    if (missing) {
      throw refusal(
        call,
        new MissingRequiredClientCapabilityError(
          { requiredCapabilities: missing },
          `Missing required client capabilities: ${describeMissing(missing)}`,
        ),
      );
    }
  }
}
