import { CHANGE_CHANNEL, decodeChangeEvent, type ChangeEvent } from './change-channel';

describe("the core's fleet channel of changes", () => {
  it('reads back list changes, resource updates and definition changes', () => {
    const events: ChangeEvent[] = [
      { kind: 'listChanged', list: 'tools' },
      { kind: 'listChanged', list: 'prompts' },
      { kind: 'listChanged', list: 'resources' },
      { kind: 'resourceUpdated', uri: 'test://watched-resource' },
      { kind: 'definitionsChanged', operation: 'resource', name: 'notes://{id}' },
    ];
    for (const event of events)
      expect(decodeChangeEvent(JSON.parse(JSON.stringify(event)))).toEqual(event);
    expect(decodeChangeEvent({ kind: 'resourceUpdated', uri: 'u', sessionId: 's' })).toEqual({
      kind: 'resourceUpdated',
      uri: 'u',
    });
  });

  it('refuses what is not one of its events, a session event included', () => {
    for (const value of [
      { kind: 'listChanged', list: 'secrets' },
      { kind: 'resourceUpdated', uri: '' },
      { kind: 'resourceUpdated', uri: 'x'.repeat(65_537) },
      { kind: 'definitionsChanged', operation: 'task', name: 'x' },
      { kind: 'definitionsChanged', operation: 'tool' },
      { kind: 'closed', sessionId: 's' },
      null,
      'listChanged',
    ])
      expect(decodeChangeEvent(value)).toBeUndefined();
  });

  it("is named 'changes' and bounded by the bus's maxEventBytes", () => {
    expect(CHANGE_CHANNEL.name).toBe('changes');
    expect(CHANGE_CHANNEL.maxBytes).toBeUndefined();
  });
});
