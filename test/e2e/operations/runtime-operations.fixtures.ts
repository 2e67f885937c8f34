import {
  Catch,
  Injectable,
  Module,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
  type NestInterceptor,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { Reflector } from '@nestjs/core';
import {
  McpArgs,
  McpContext,
  McpExecutionContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpModule,
  McpRequestStateMode,
  McpTool,
  McpToolError,
  type McpModuleOptions,
  type McpOperationContext,
  type McpToolOptions,
} from '../../../src/index';
import { McpRuntimeOperations, type McpRuntimeDefinition } from '../../../src/entry/runtime';
import { askOnce } from '../../utils/input-asks';

/** `x-user: <name>` names the caller; only alice has the agent role. */
export function userOf(caller: McpOperationContext): string | undefined {
  const user = caller.http.request.headers['x-user'];
  return typeof user === 'string' ? user : undefined;
}

/**
 * A guard class that no module provides, with a dependency (`Reflector`): Nest would skip it on a
 * handler it cannot find in a module, so a run-time operation must have it resolved through DI.
 */
@Injectable()
export class AgentRoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const role = this.reflector.get<string | undefined>('role', context.getHandler());
    if (role === undefined) return true;
    const user = userOf(McpExecutionContext.create(context).getOperationContext());
    return role === 'agent' && user === 'alice';
  }
}

const approvalSchema = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve?' } },
  required: ['approve'],
};

export const ORDER_SCHEMA = {
  type: 'object',
  properties: { item: { type: 'string', maxLength: 20 } },
  required: ['item'],
};

/** The contract of `confirm_order`, decorated or registered at run time. */
export const CONFIRM_OPTIONS: McpToolOptions & { name: string } = {
  name: 'confirm_order',
  description: 'Orders an item once the user confirms',
  inputSchema: ORDER_SCHEMA,
  requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  mayRequestInput: [{ type: 'elicitation.form' }],
};

/** Asks once, then answers what the user said. */
export function confirmOrder(
  args: { item: string },
  ctx: McpOperationContext,
): McpInputRequiredResult | string {
  const state = ctx.requestState.framework<{ asked: boolean }>();
  const answer = state?.asked ? ctx.inputResponses.find('confirm') : undefined;
  if (!answer)
    return askOnce(
      'confirm',
      McpInputRequest.elicitForm({
        message: `Order ${args.item}?`,
        requestedSchema: approvalSchema,
      }),
    );
  const approved =
    answer.kind === 'elicitation' &&
    answer.action === 'accept' &&
    (answer.content as { approve?: unknown } | undefined)?.approve === true;
  return approved ? `Ordered ${args.item}` : 'Not ordered';
}

/** `confirm_order` as a decorated method, guarded by the role guard. */
@Injectable()
export class DecoratedOrders {
  @UseGuards(AgentRoleGuard)
  @SetMetadata('role', 'agent')
  @McpTool(CONFIRM_OPTIONS)
  confirm(@McpArgs() args: { item: string }, @McpContext() ctx: McpContext) {
    return confirmOrder(args, ctx);
  }
}

/** Tags every result it sees. */
@Injectable()
export class TagInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((value) => `${String(value)} (tagged)`));
  }
}

/** Turns a failure into a tool error of its own. */
@Catch()
export class ToolErrorFilter implements ExceptionFilter {
  catch(): never {
    throw new McpToolError('filtered failure');
  }
}

export const WRAPPED_OPTIONS = {
  name: 'wrapped',
  description: 'Echoes, or fails when asked',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, fail: { type: 'boolean' } },
    required: ['text'],
  },
};

export function wrapped(args: { text: string; fail?: boolean }): string {
  if (args.fail) throw new Error('failed on purpose');
  return args.text;
}

/** `wrapped` as a decorated method: an interceptor and an exception filter of its own. */
@Injectable()
export class DecoratedWrapped {
  @UseInterceptors(TagInterceptor)
  @UseFilters(ToolErrorFilter)
  @McpTool(WRAPPED_OPTIONS)
  wrapped(@McpArgs() args: { text: string; fail?: boolean }) {
    return wrapped(args);
  }
}

/** `confirm_order` as the run-time registry takes it. */
export const RUNTIME_CONFIRM: McpRuntimeDefinition<McpToolOptions & { name: string }> = {
  ...CONFIRM_OPTIONS,
  guards: [AgentRoleGuard],
  decorators: [SetMetadata('role', 'agent')],
};

/** Registers what `register` says once the module is up. */
@Injectable()
export class RuntimeRegistrations implements OnModuleInit {
  static register: (runtime: McpRuntimeOperations) => Promise<void> = async () => undefined;

  constructor(readonly runtime: McpRuntimeOperations) {}

  async onModuleInit(): Promise<void> {
    await RuntimeRegistrations.register(this.runtime);
  }
}

/** An app serving `providers` plus what `register` registers at run time. */
export function runtimeApp(
  providers: Type<unknown>[],
  register: (runtime: McpRuntimeOperations) => Promise<void>,
  options: Partial<McpModuleOptions> = {},
): Type<unknown> {
  @Injectable()
  class Registrations implements OnModuleInit {
    constructor(readonly runtime: McpRuntimeOperations) {}

    async onModuleInit(): Promise<void> {
      await register(this.runtime);
    }
  }
  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true, ...options })],
    providers: [...providers, Registrations],
  })
  class RuntimeApp {}
  return RuntimeApp;
}
