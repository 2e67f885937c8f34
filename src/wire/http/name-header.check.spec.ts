import { longNameHeaderMismatch } from './name-header.check';

const MODERN = { 'mcp-protocol-version': '2026-07-28' };
const LONG = 'x'.repeat(1_000_000);

describe('longNameHeaderMismatch', () => {
  it('answers a long task id with a disagreeing header, both clipped', () => {
    const answer = longNameHeaderMismatch({ ...MODERN, 'mcp-name': 'other' }, 'tasks/get', {
      taskId: LONG,
    });
    expect(answer?.message.length).toBeLessThan(400);
    expect(answer?.data.mismatch.header).toBe('other');
    expect(JSON.stringify(answer).length).toBeLessThan(1_000);
  });

  it('answers a long value without a header, and a long header for a short value', () => {
    expect(longNameHeaderMismatch(MODERN, 'tools/call', { name: LONG })?.data.mismatch.header).toBe(
      '(missing)',
    );
    const long = longNameHeaderMismatch(
      { ...MODERN, 'mcp-name': 'y'.repeat(10_000) },
      'resources/read',
      {
        uri: 'a://b',
      },
    );
    expect(JSON.stringify(long).length).toBeLessThan(1_000);
  });

  it('leaves agreeing headers (plain or Base64 sentinel), short values and old clients to the SDK', () => {
    const sentinel = `=?base64?${Buffer.from(LONG).toString('base64')}?=`;
    expect(
      longNameHeaderMismatch({ ...MODERN, 'mcp-name': LONG }, 'tasks/get', { taskId: LONG }),
    ).toBe(undefined);
    expect(
      longNameHeaderMismatch({ ...MODERN, 'mcp-name': sentinel }, 'tasks/get', { taskId: LONG }),
    ).toBe(undefined);
    expect(
      longNameHeaderMismatch({ ...MODERN, 'mcp-name': 'a' }, 'tools/call', { name: 'b' }),
    ).toBe(undefined);
    expect(longNameHeaderMismatch({ 'mcp-name': 'a' }, 'tools/call', { name: LONG })).toBe(
      undefined,
    );
    expect(longNameHeaderMismatch(MODERN, 'tools/list', { name: LONG })).toBe(undefined);
  });
});
