import { decodeSessionEvent, SESSION_CHANNEL, type SessionEvent } from './session-channel';

describe("the sessions' fleet channel", () => {
  it('reads back every kind of session event, the answer text byte for byte', () => {
    const events: SessionEvent[] = [
      {
        kind: 'answer',
        sessionId: 'session-1',
        id: 7,
        response: '{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"n":3.50}}}',
      },
      { kind: 'answer', sessionId: 'session-1', id: 'nestjs-mcp-x', response: '{}' },
      { kind: 'cancel', sessionId: 'session-1', requestId: 'r-1' },
      { kind: 'closed', sessionId: 'session-1' },
    ];
    for (const event of events)
      expect(decodeSessionEvent(JSON.parse(JSON.stringify(event)))).toEqual(event);
  });

  it('keeps only the fields of the event', () => {
    expect(decodeSessionEvent({ kind: 'closed', sessionId: 's', extra: { big: true } })).toEqual({
      kind: 'closed',
      sessionId: 's',
    });
  });

  it('refuses what is not one of its events, the core’s changes included', () => {
    for (const value of [
      { kind: 'answer', sessionId: 'session-1', id: {}, response: '{}' },
      { kind: 'answer', sessionId: 'session-1', id: 1 },
      { kind: 'answer', sessionId: 'x'.repeat(65), id: 1, response: '{}' },
      { kind: 'cancel', sessionId: 'session-1', requestId: Number.NaN },
      { kind: 'cancel', sessionId: 'session-1', requestId: 'x'.repeat(257) },
      { kind: 'closed', sessionId: '' },
      { kind: 'listChanged', list: 'tools' },
      { kind: 'shutdown', sessionId: 'session-1' },
      'closed',
      null,
      [],
    ])
      expect(decodeSessionEvent(value)).toBeUndefined();
  });

  it("is named 'sessions' and bounded by the bus's maxEventBytes (an answer is one request body)", () => {
    expect(SESSION_CHANNEL.name).toBe('sessions');
    expect(SESSION_CHANNEL.maxBytes).toBeUndefined();
  });
});
