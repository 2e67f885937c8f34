import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ServerOptions } from '../protocol/server.options';
import { ListenInterest, type ListenFilter } from './listen-stream-frames';
import { ListenStreams } from './listen-streams';
import { FAN_OUT_COALESCE_AFTER, FAN_OUT_SLICE, MAX_STREAM_BACKLOG_BYTES } from './stream-fan-out';
import type { TransportOptions } from '../http/transport.options';

/** A response that records what is written to it. */
class RecordingResponse extends EventEmitter {
  readonly written: string[] = [];
  destroyed = false;
  writableEnded = false;
  writableLength = 0;

  write(text: string): boolean {
    this.written.push(text);
    return true;
  }

  end(text?: string): void {
    if (text !== undefined) this.written.push(text);
    this.writableEnded = true;
    setImmediate(() => this.emit('close'));
  }

  destroy(): void {
    this.destroyed = true;
    setImmediate(() => this.emit('close'));
  }
}

const TOOLS: ListenFilter = { interests: ListenInterest.tools, uris: undefined };
const SERVER_INFO = { name: 'demo', version: '1.0.0' };
const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

function streams(keepAliveMs = 0): ListenStreams {
  return new ListenStreams(
    { keepAliveMs } as TransportOptions,
    { serverInfo: SERVER_INFO } as ServerOptions,
  );
}

function hold(registry: ListenStreams, count: number, filter = TOOLS): RecordingResponse[] {
  return Array.from({ length: count }, (_, i) => {
    const res = new RecordingResponse();
    void registry.hold(res as unknown as ServerResponse, String(i), filter);
    return res;
  });
}

describe('ListenStreams', () => {
  it('fans a change out a slice per macrotask, each stream getting changes in order', async () => {
    const registry = streams();
    const responses = hold(registry, FAN_OUT_SLICE * 2 + 1);
    registry.announce({ kind: 'listChanged', list: 'tools' });
    registry.announce({ kind: 'resourceUpdated', uri: 'a://x' }); // followed by none
    registry.announce({ kind: 'listChanged', list: 'tools' });
    const written = () => responses.filter((res) => res.written.length > 0).length;
    expect(written()).toBe(0);
    await nextMacrotask();
    // One slice: at most FAN_OUT_SLICE streams (fewer if the machine is slow enough to hit the time budget).
    expect(written()).toBeGreaterThan(0);
    expect(written()).toBeLessThanOrEqual(FAN_OUT_SLICE);
    for (let i = 0; i < 1000 && written() < responses.length; i++) await nextMacrotask();
    for (let i = 0; i < 1000 && responses.some((res) => res.written.length < 2); i++)
      await nextMacrotask();
    for (const [i, res] of responses.entries()) {
      expect(res.written).toEqual([
        `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":${i}}}}\n\n`,
        `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":${i}}}}\n\n`,
      ]);
    }
  });

  it('keeps what waits for a stream bounded in a storm: past the bound, a change already waiting is not queued again', async () => {
    const registry = streams();
    const [res] = hold(registry, 1, { interests: 7, uris: new Set(['a://x', 'a://y']) });
    for (let storm = 0; storm < 10_000; storm++) {
      registry.announce({ kind: 'listChanged', list: 'tools' });
      registry.announce({ kind: 'resourceUpdated', uri: 'a://x' });
    }
    registry.announce({ kind: 'resourceUpdated', uri: 'a://y' });
    await nextMacrotask();
    const said = res.written.map((frame) =>
      frame.includes('"uri":"a://y"') ? 'y' : frame.includes('"uri":"a://x"') ? 'x' : 'tools',
    );
    // Every change while few wait, as the SDK writes them; then only what says something new.
    expect(said).toEqual([
      ...Array.from({ length: FAN_OUT_COALESCE_AFTER / 2 }, () => ['tools', 'x']).flat(),
      'y',
    ]);
    registry.announce({ kind: 'listChanged', list: 'tools' });
    await nextMacrotask();
    expect(res.written).toHaveLength(FAN_OUT_COALESCE_AFTER + 2);
  });

  it('writes resource updates only to the streams following that URI', async () => {
    const registry = streams();
    const [follower] = hold(registry, 1, { interests: 0, uris: new Set(['a://x']) });
    const [lists] = hold(registry, 1, { interests: 7, uris: undefined });
    registry.announce({ kind: 'resourceUpdated', uri: 'a://y' });
    registry.announce({ kind: 'resourceUpdated', uri: 'a://x' });
    await nextMacrotask();
    expect(follower.written).toEqual([
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://x","_meta":{"io.modelcontextprotocol/subscriptionId":0}}}\n\n',
    ]);
    expect(lists.written).toEqual([]);
  });

  it('does not write a change to a stream opened after it was announced', async () => {
    const registry = streams();
    const [early] = hold(registry, 1);
    registry.announce({ kind: 'listChanged', list: 'tools' });
    const [late] = hold(registry, 1);
    await nextMacrotask();
    expect(early.written).toHaveLength(1);
    expect(late.written).toEqual([]);
  });

  it('destroys a stream whose backlog is over the bound instead of queueing more', async () => {
    const registry = streams();
    const [slow, fast] = hold(registry, 2);
    slow.writableLength = MAX_STREAM_BACKLOG_BYTES + 1;
    registry.announce({ kind: 'listChanged', list: 'tools' });
    await nextMacrotask();
    expect(slow.destroyed).toBe(true);
    expect(slow.written).toEqual([]);
    expect(fast.written).toHaveLength(1);
    await nextMacrotask();
    expect(registry.size).toBe(1);
  });

  it('on shutdown writes the changes announced first, then each final result, and forgets the streams', async () => {
    const registry = streams();
    const [res] = hold(registry, 1);
    registry.announce({ kind: 'listChanged', list: 'tools' });
    registry.closeAll();
    expect(res.written).toEqual([
      expect.stringContaining('notifications/tools/list_changed'),
      'event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":0,"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}}}}\n\n',
    ]);
    await nextMacrotask();
    expect(registry.size).toBe(0);
    const [later] = hold(registry, 1);
    expect(later.writableEnded).toBe(true);
  });

  it('sends keep-alive comments on one timer while streams are open', async () => {
    const registry = streams(5);
    const [res] = hold(registry, 1);
    for (let tick = 0; tick < 400 && res.written.length < 2; tick++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(res.written.length).toBeGreaterThanOrEqual(2);
    expect(new Set(res.written)).toEqual(new Set([': keepalive\n\n']));
    res.destroy();
    await nextMacrotask();
    expect(registry.size).toBe(0);
  });
});
