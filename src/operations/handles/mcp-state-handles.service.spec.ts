import { Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { resolveMcpOptions } from '../../mcp-options.resolver';
import { createTestOperationContext } from '../context/create-test-operation-context';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import { McpStateHandles } from './mcp-state-handles.service';
import { MemoryStateHandleRepository } from '../../request-state/stores/handles/memory-state-handle.repository';
import type { CallerPartitions } from '../../auth/identity/caller-partitions';

describe('McpStateHandles', () => {
  let repository: MemoryStateHandleRepository;
  let handles: McpStateHandles;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    repository = new MemoryStateHandleRepository();
    jest.spyOn(repository, 'redeem');
    jest.spyOn(repository, 'put');
    jest.spyOn(repository, 'delete');
    const partitions = { resolve: () => Promise.resolve('user:alice') };
    const operations = {
      findTool: () => ({ profile: { stateMode: McpRequestStateMode.APPLICATION_PROTECTED } }),
    };
    handles = new McpStateHandles(
      resolveMcpOptions({ requestState: { maxLifetimeMs: 60_000 } }).requestState,
      partitions as unknown as CallerPartitions,
      repository,
      operations as unknown as McpOperationRegistry,
    );
  });
  afterEach(() => {
    repository.close();
    jest.restoreAllMocks();
  });

  it('starts a flow on a first round, saving under one handle however often it saves', async () => {
    const ctx = createTestOperationContext({ target: 'approve' });
    const flow = await handles.resume<{ step: number }>(ctx);
    expect(await handles.resume(ctx)).toBe(flow);
    expect(flow.data).toBeUndefined();
    expect(flow.resumed).toBe(false);
    const first = await flow.save({ step: 1 });
    expect(await flow.save({ step: 2 })).toBe(first);
    expect(repository.size).toBe(1);
    expect(repository.redeem).not.toHaveBeenCalled();
  });

  it('redeems the presented handle once per call, rotates it, and keeps the flow expiry', async () => {
    const first = await (await handles.resume(createTestOperationContext())).save({ step: 1 });
    const ctx = createTestOperationContext({ applicationState: first });
    const flow = await handles.resume<{ step: number }>(ctx);
    await handles.resume(ctx);
    expect(repository.redeem).toHaveBeenCalledTimes(1);
    expect(flow.data).toEqual({ step: 1 });
    expect(flow.resumed).toBe(true);
    const second = await flow.save({ step: 2 });
    expect(second).not.toBe(first);
    const [, firstRecord] = jest.mocked(repository.put).mock.calls[0];
    const [, secondRecord] = jest.mocked(repository.put).mock.calls[1];
    expect(secondRecord.expiresAt).toBe(firstRecord.expiresAt);
    expect(secondRecord.round).toBe(2);
    expect(secondRecord.binding).toBe(firstRecord.binding);
  });

  it('refuses a replayed handle with -32602 Invalid request state', async () => {
    const first = await (await handles.resume(createTestOperationContext())).save({ step: 1 });
    await handles.resume(createTestOperationContext({ applicationState: first }));
    const replay = handles.resume(createTestOperationContext({ applicationState: first }));
    await expect(replay).rejects.toBeInstanceOf(ProtocolError);
    await expect(replay).rejects.toMatchObject({ code: -32602, message: 'Invalid request state' });
  });

  it('finishes once, deleting the live handle; a finished flow cannot save', async () => {
    const first = await (await handles.resume(createTestOperationContext())).save({ step: 1 });
    const flow = await handles.resume(createTestOperationContext({ applicationState: first }));
    await flow.finish();
    await flow.finish();
    expect(repository.delete).toHaveBeenCalledTimes(1);
    expect(repository.size).toBe(0);
    await expect(flow.save({ step: 2 })).rejects.toThrow('finished');
  });

  it('finishes a first round that saved nothing without touching the repository', async () => {
    await (await handles.resume(createTestOperationContext())).finish();
    expect(repository.delete).not.toHaveBeenCalled();
  });
});
