import { FleetBus } from '../../../wire/fleet/fleet-bus';
import type { FleetChannel } from '../../../wire/fleet/fleet-channel';
import { resolveSessionOptions } from '../session.options';
import { SessionAnswers } from './session-answers';

/** Two instances' buses joined as Redis would join them: each hears the other's events as remote. */
class PairedBus extends FleetBus {
  readonly fleet = true;
  readonly published: unknown[] = [];
  other: PairedBus | undefined;

  publish<T>(channel: FleetChannel<T>, event: T): void {
    this.published.push(event);
    this.deliverHere(channel, event);
    this.other?.hear(channel, event);
  }

  private hear<T>(channel: FleetChannel<T>, event: T): void {
    this.register(channel);
    this.deliver(channel.name, event, 'remote');
  }
}

function answersOn(bus: FleetBus, sessions = {}): SessionAnswers {
  const answers = new SessionAnswers(
    resolveSessionOptions({ answerTimeoutMs: 100, maxPendingRequests: 2, ...sessions }),
    bus,
  );
  answers.onModuleInit();
  return answers;
}

describe('SessionAnswers', () => {
  let instances: SessionAnswers[] = [];
  afterEach(() => {
    for (const each of instances) each.onModuleDestroy();
    instances = [];
  });
  const make = (bus: FleetBus, sessions = {}) => {
    const answers = answersOn(bus, sessions);
    instances.push(answers);
    return answers;
  };

  it('hands an answer posted to another instance to the call waiting on this one', async () => {
    const here = new PairedBus();
    const there = new PairedBus();
    here.other = there;
    there.other = here;
    const waiting = make(here);
    const elsewhere = make(there);
    const id = waiting.newRequestId();
    const answer = waiting.wait('s1', id, new AbortController().signal, () =>
      elsewhere.deliver('s1', id, '{"jsonrpc":"2.0","id":"x","result":{"n":3.50}}'),
    );
    await expect(answer).resolves.toEqual({
      kind: 'answer',
      response: '{"jsonrpc":"2.0","id":"x","result":{"n":3.50}}',
    });
    // Settled where it was waited for; the other instance only published it.
    expect(there.published).toHaveLength(1);
    expect(here.published).toHaveLength(0);
  });

  it("never settles another session's request with an answer that names its id", async () => {
    const bus = new PairedBus();
    const answers = make(bus);
    const id = answers.newRequestId();
    const waiting = answers.wait('s1', id, new AbortController().signal, () =>
      answers.deliver('s2', id, '{}'),
    );
    await expect(waiting).resolves.toEqual({ kind: 'unanswered', reason: 'timeout' });
  });

  it('bounds the wait (answerTimeoutMs) and the requests a session has waiting (maxPendingRequests)', async () => {
    const answers = make(new PairedBus());
    const signal = new AbortController().signal;
    const [a, b, c, d] = [1, 2, 3, 4].map(() => answers.newRequestId());
    const first = answers.wait('s1', a, signal, () => undefined);
    const second = answers.wait('s1', b, signal, () => undefined);
    await expect(answers.wait('s1', c, signal, () => undefined)).resolves.toEqual({
      kind: 'unanswered',
      reason: 'too_many_pending',
    });
    // Another session has an allowance of its own.
    const other = answers.wait('s2', a, signal, () => answers.deliver('s2', a, '{}'));
    await expect(other).resolves.toEqual({ kind: 'answer', response: '{}' });
    await expect(Promise.all([first, second])).resolves.toEqual([
      { kind: 'unanswered', reason: 'timeout' },
      { kind: 'unanswered', reason: 'timeout' },
    ]);
    // The timed-out waits gave their places back.
    const again = answers.wait('s1', d, signal, () => answers.deliver('s1', d, '{}'));
    await expect(again).resolves.toEqual({ kind: 'answer', response: '{}' });
  });

  it('ends a wait when its call goes away, and every wait at shutdown', async () => {
    const answers = answersOn(new PairedBus(), { answerTimeoutMs: 60_000 });
    const controller = new AbortController();
    const aborted = answers.wait('s1', 'a', controller.signal, () => controller.abort());
    await expect(aborted).resolves.toEqual({ kind: 'unanswered', reason: 'aborted' });
    const pending = answers.wait('s1', 'b', new AbortController().signal, () => undefined);
    answers.onModuleDestroy();
    await expect(pending).resolves.toEqual({ kind: 'unanswered', reason: 'aborted' });
  });

  it('drops an answer to an id it never drew, without a word to the fleet', async () => {
    const bus = new PairedBus();
    const answers = make(bus);
    for (const id of ['1', 7, 'nestjs-mcp-short', `${answers.newRequestId()}x`])
      answers.deliver('s1', id, '{}');
    answers.deliver('s1', answers.newRequestId(), '{}');
    expect(bus.published).toHaveLength(1);
  });

  it('draws request ids no client would pick, and never the same twice', () => {
    const answers = make(new PairedBus());
    const ids = new Set(Array.from({ length: 1_000 }, () => answers.newRequestId()));
    expect(ids.size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(/^nestjs-mcp-[\w-]{16}$/);
  });
});
