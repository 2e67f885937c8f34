import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SkillReadBudget, UNCOUNTED_READ_BYTES } from './skill-read-budget';

const MiB = 1024 * 1024;

/** A response that closes when told. */
function response(): ServerResponse & { close(): void } {
  const emitter = new EventEmitter() as EventEmitter & { closed: boolean; destroyed: boolean };
  emitter.closed = false;
  emitter.destroyed = false;
  return Object.assign(emitter, {
    close() {
      emitter.closed = true;
      emitter.emit('close');
    },
  }) as unknown as ServerResponse & { close(): void };
}

describe('SkillReadBudget', () => {
  const budget = () => new SkillReadBudget({ capacity: 64 * MiB, perPartition: 32 * MiB });

  it('counts an answer until its response closes, per caller and in total', () => {
    const reads = budget();
    const first = response();
    reads.reserve('alice', 24 * MiB, first);
    expect(() => reads.reserve('alice', 24 * MiB, response())).toThrow(
      expect.objectContaining({
        code: -32000,
        message: 'Server busy: too many skill file bytes in flight for this caller',
        data: { maxInFlightReadBytesPerCaller: 32 * MiB, retryAfterMs: 1000 },
      }),
    );
    reads.reserve('bob', 24 * MiB, response());
    expect(() => reads.reserve('carol', 24 * MiB, response())).toThrow(
      expect.objectContaining({
        message: 'Server busy: too many skill file bytes in flight',
        data: { maxInFlightReadBytes: 64 * MiB, retryAfterMs: 1000 },
      }),
    );
    first.close();
    first.close();
    expect(reads.bytesInFlight).toBe(24 * MiB);
    reads.reserve('alice', 24 * MiB, response());
  });

  it("shrinks a heavy caller's share once the total is three-quarters full", () => {
    const reads = budget();
    reads.reserve('alice', 20 * MiB, response());
    reads.reserve('bob', 30 * MiB, response());
    // 50 of 64 MiB in flight: alice, who holds some, may hold less than 32 MiB now.
    expect(() => reads.reserve('alice', 10 * MiB, response())).toThrow(
      expect.objectContaining({
        data: { maxInFlightReadBytesPerCaller: 28 * MiB, retryAfterMs: 1000 },
      }),
    );
    // carol, who holds nothing, is served while there is room.
    reads.reserve('carol', 10 * MiB, response());
  });

  it('never counts small answers, nor one whose response already closed', () => {
    const reads = budget();
    reads.reserve('alice', UNCOUNTED_READ_BYTES, response());
    expect(reads.bytesInFlight).toBe(0);
    const closed = response();
    closed.close();
    reads.reserve('alice', 10 * MiB, closed);
    expect(reads.bytesInFlight).toBe(0);
  });
});
