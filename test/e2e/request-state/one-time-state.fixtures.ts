import { Injectable, Module, type LoggerService, type ModuleMetadata } from '@nestjs/common';
import {
  McpArgs,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpContext,
  McpModule,
  McpOperationContext,
  McpRequestStateMode,
  McpTool,
} from '../../../src/index';
import { ConsumedStateStore, ConsumedStateStoreError } from '../../../src/entry/stores';
import { startTestServer, type AdapterName, type TestServer } from '../../utils/bootstrap';
import { freshId, rawToolCall, stateOf, type RawRoundResponse } from '../../utils/mcp';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { askOnce, requiredField } from '../../utils/input-asks';

const confirmSchema = requiredField('confirm', 'boolean');
const pathSchema = requiredField('path', 'string');

/** Round 1 asks to confirm; a confirmed retry "deletes" (counted in {@link HandlerRuns} as `<name>:deleted`). */
function deleteAfterConfirm(
  name: string,
  runs: HandlerRuns,
  path: string,
  ctx: McpOperationContext,
): McpInputRequiredResult | string {
  const asked = ctx.requestState.framework<{ asked: boolean }>()?.asked === true;
  const answer = asked ? ctx.inputResponses.find('confirm') : undefined;
  if (answer?.kind !== 'elicitation') {
    return askOnce(
      'confirm',
      McpInputRequest.elicitForm({ message: `Delete ${path}?`, requestedSchema: confirmSchema }),
    );
  }
  runs.hit(`${name}:deleted`);
  return `Deleted ${path}`;
}

/** Delete-after-confirm tools, single-use and not. */
@Injectable()
export class OneTimeStateFixtures {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({
    name: 'once_delete',
    description: 'Deletes after a confirmation; its state is single-use',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: true,
    inputSchema: pathSchema,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  onceDelete(@McpArgs('path') path: string, @McpContext() ctx: McpOperationContext) {
    return deleteAfterConfirm('once_delete', this.runs, path, ctx);
  }

  @McpTool({
    name: 'plain_delete',
    description: 'Deletes after a confirmation; single-use only by module default',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    inputSchema: pathSchema,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  plainDelete(@McpArgs('path') path: string, @McpContext() ctx: McpOperationContext) {
    return deleteAfterConfirm('plain_delete', this.runs, path, ctx);
  }

  @McpTool({
    name: 'repeatable_delete',
    description: 'Deletes after a confirmation; never single-use',
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: false,
    inputSchema: pathSchema,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  repeatableDelete(@McpArgs('path') path: string, @McpContext() ctx: McpOperationContext) {
    return deleteAfterConfirm('repeatable_delete', this.runs, path, ctx);
  }
}

@Module({ imports: [HandlerRunsModule], providers: [OneTimeStateFixtures] })
export class OneTimeStateFixturesModule {}

/** A `singleUse` tool without framework state: startup must fail. */
@Injectable()
export class SingleUseWithoutFrameworkState {
  @McpTool({ description: 'Single-use with nothing to consume', singleUse: true })
  orphan(): string {
    return 'never served';
  }
}

/** An app-provided store that records what it was asked, in memory. */
@Injectable()
export class RecordingConsumedStateStore implements ConsumedStateStore {
  readonly calls: { id: string; expiresAt: number; first: boolean }[] = [];
  private readonly consumed = new Set<string>();

  consume(id: string, expiresAt: number): Promise<boolean> {
    const first = !this.consumed.has(id);
    this.consumed.add(id);
    this.calls.push({ id, expiresAt, first });
    return Promise.resolve(first);
  }
}

@Module({
  providers: [
    RecordingConsumedStateStore,
    { provide: ConsumedStateStore, useExisting: RecordingConsumedStateStore },
  ],
  exports: [ConsumedStateStore],
})
export class RecordingConsumedStateStoreModule {}

/** A store that cannot be reached. */
export const UNREACHABLE_STORE: ConsumedStateStore = {
  consume: () => Promise.reject(new ConsumedStateStoreError('unavailable')),
};

/** A store with a bug: a programming error is a fault, never an outage to retry. */
export const FAULTY_STORE: ConsumedStateStore = {
  consume: () =>
    Promise.reject(new TypeError("Cannot read properties of undefined (reading 'set')")),
};

/** What the deleting tools above are asked to delete, and the answer that confirms it. */
export const FILE = { path: '/srv/report.pdf' };
export const CONFIRM = { confirm: { action: 'accept', content: { confirm: true } } };
const FORM = { elicitation: {} };

/** Round 1 of `tool` on `server`: the sealed state to confirm with (it needs no store). */
export async function askToDelete(server: TestServer, tool: string): Promise<string> {
  return stateOf(await rawToolCall(server.url, tool, FILE, { capabilities: FORM }));
}

/** A confirming retry of `tool` with `state`, under a fresh JSON-RPC id. */
export function confirmDelete(
  server: TestServer,
  tool: string,
  state: string,
  extra: { args?: Record<string, unknown>; inputResponses?: unknown } = {},
): Promise<RawRoundResponse> {
  return rawToolCall(server.url, tool, extra.args ?? FILE, {
    capabilities: FORM,
    id: freshId(),
    requestState: state,
    inputResponses: extra.inputResponses ?? CONFIRM,
  });
}

/** How many times `once_delete` deleted, on all of `servers` together. */
export function deletionsOn(...servers: TestServer[]): number {
  return servers.reduce(
    (sum, server) => sum + server.app.get(HandlerRuns).count('once_delete:deleted'),
    0,
  );
}

/** Round 1 of `once_delete`, then one confirming retry of it (round 1's state sent as it came). */
export async function singleUseFlow(server: TestServer): Promise<RawRoundResponse> {
  const first = await rawToolCall(server.url, 'once_delete', FILE, { capabilities: FORM });
  return rawToolCall(server.url, 'once_delete', FILE, {
    capabilities: FORM,
    id: freshId(),
    requestState: first.body.result?.requestState,
    inputResponses: CONFIRM,
  });
}

/**
 * An app of these fixtures on `adapter`: `McpModule.forRoot(options)` (a keyring among them), the
 * fixtures and `imports`, logging to `logger` when one is given.
 */
export function startOneTimeStateApp(
  adapter: AdapterName,
  options: Parameters<typeof McpModule.forRoot>[0],
  { logger, imports = [] }: { logger?: LoggerService; imports?: ModuleMetadata['imports'] } = {},
): Promise<TestServer> {
  return startTestServer(
    adapter,
    { imports: [McpModule.forRoot(options), OneTimeStateFixturesModule, ...imports] },
    '/mcp',
    logger ? { logger } : {},
  );
}
