import { LosslessNumber } from 'lossless-json';
import { AesGcmRequestStateProtector } from './aes-gcm-request-state.protector';
import { canonicalJson } from '../../kit/canonical-json';
import type { RequestStateBinding, RequestStateBindingField } from './request-state-binding';
import {
  RequestStateProtectionError,
  type RequestStateFailureReason,
} from './request-state-protection.error';
import type { RequestStateProtector } from './request-state-protector.interface';
import { requestIdKey } from './request-id-key';
import type { RequestStateHeader } from './request-state-header';
import { CLOCK_SKEW_TOLERANCE_MS, RequestStateSealer } from './request-state.sealer';
import { rejectionOf } from '../../kit/thrown.spec-helper';
import { BINDING, LIMITS, T0, sealerWith, testProtector } from './request-state-sealer.spec-helper';

/** The header of round `r` of a flow that began at `T0` and expires at `exp`. */
function earlierRound(r: number, exp = T0 + LIMITS.maxLifetimeMs): RequestStateHeader {
  return { v: 3, iat: T0, exp, r };
}

async function errorOf(promise: Promise<unknown>): Promise<RequestStateProtectionError> {
  return rejectionOf(promise, RequestStateProtectionError);
}

async function failureOf(promise: Promise<unknown>): Promise<RequestStateFailureReason> {
  return (await errorOf(promise)).reason;
}

/** The clear header of a state: `4_<iat>_<exp>_<round>`. */
function headerOf(token: string): RequestStateHeader {
  const [v, iat, exp, r] = token.slice(0, token.indexOf('.')).split('_').map(Number);
  return { v, iat, exp, r };
}

function spelled(header: { v: number; iat: number; exp: number; r: number }): string {
  return `${header.v}_${header.iat}_${header.exp}_${header.r}`;
}

function withHeaderText(token: string, headerText: string): string {
  return `${headerText}${token.slice(token.indexOf('.'))}`;
}

describe('RequestStateSealer', () => {
  let protector: AesGcmRequestStateProtector;
  let sealer: RequestStateSealer;

  beforeEach(() => {
    protector = testProtector();
    sealer = sealerWith({}, protector);
  });

  describe('round trip', () => {
    it('opens to the same JSON value and asked kinds', async () => {
      const value = {
        step: 2,
        name: 'Zoë',
        tags: ['a', 'b'],
        nested: { ok: true, none: null },
        ratio: 0.25,
        big: -1e21,
      };
      const token = await sealer.seal(
        value,
        { approval: 'elicitation', roots: 'roots' },
        BINDING,
        'req-1',
        undefined,
        T0,
      );
      const opened = await sealer.open(token, BINDING, 'req-2', T0 + 1000);
      expect(canonicalJson(opened.value)).toBe(canonicalJson(value));
      const { big, ...rest } = opened.value as Record<string, unknown>;
      expect({ ...value, big: undefined }).toEqual({ ...rest, big: undefined });
      // -1e21 is past the safe-integer range, so it opens as an exact LosslessNumber of equal value.
      expect(Number(big)).toBe(-1e21);
      expect(opened.askedKinds).toEqual({ approval: 'elicitation', roots: 'roots' });
    });

    it('carries a replay ledger beside the JSON, or alone, and none unless given', async () => {
      const ledger = '[{"f":"x","k":"roots","a":{"roots":[]}}]';
      const both = await sealer.seal({ step: 1 }, {}, BINDING, 1, undefined, T0, ledger);
      expect(await sealer.open(both, BINDING, 2, T0)).toMatchObject({
        value: { step: 1 },
        replayLedger: ledger,
      });
      const alone = await sealer.seal(
        undefined,
        { 'ask-1': 'roots' },
        BINDING,
        1,
        undefined,
        T0,
        ledger,
      );
      const opened = await sealer.open(alone, BINDING, 2, T0);
      expect(opened.value).toBeUndefined();
      expect(opened.replayLedger).toBe(ledger);
      const plain = await sealer.seal({ step: 1 }, {}, BINDING, 1, undefined, T0);
      expect((await sealer.open(plain, BINDING, 2, T0)).replayLedger).toBeUndefined();
    });

    it.each([
      ['a string', 'plain'],
      ['a number', 42],
      ['true', true],
      ['null', null],
      ['an array', [1, 'two', [3]]],
      ['an empty object', {}],
    ])('round-trips %s at the top level', async (_, value) => {
      const token = await sealer.seal(value, {}, BINDING, 1, undefined, T0);
      expect((await sealer.open(token, BINDING, 2, T0)).value).toEqual(value);
    });

    it('keeps a LosslessNumber equal by value (3.50 opens as 3.5)', async () => {
      const token = await sealer.seal(
        { amount: new LosslessNumber('3.50') },
        {},
        BINDING,
        1,
        undefined,
        T0,
      );
      const { value } = await sealer.open(token, BINDING, 2, T0);
      const amount = (value as { amount: unknown }).amount;
      expect(canonicalJson(amount)).toBe(canonicalJson(new LosslessNumber('3.50')));
      expect(Number(amount)).toBe(3.5);
    });

    it('keeps numbers a double cannot hold exact', async () => {
      const exact = ['12345678901234567890123', '0.1000000000000000055511151231257827', '1e400'];
      const token = await sealer.seal(
        exact.map((text) => new LosslessNumber(text)),
        {},
        BINDING,
        1,
        undefined,
        T0,
      );
      const { value } = await sealer.open(token, BINDING, 2, T0);
      expect((value as LosslessNumber[]).map((member) => canonicalJson(member))).toEqual(
        exact.map((text) => canonicalJson(new LosslessNumber(text))),
      );
      expect((value as unknown[])[0]).toBeInstanceOf(LosslessNumber);
      expect(((value as unknown[])[0] as LosslessNumber).value).toBe('12345678901234567890123');
    });

    it('emits a first-round header: v4, iat now, exp now + lifetime, round 1', async () => {
      const token = await sealer.seal({}, {}, BINDING, 'req-1', undefined, T0);
      expect(token).toMatch(/^4_[0-9]+_[0-9]+_[0-9]+(\.[A-Za-z0-9_-]+){3}$/);
      const opened = await sealer.open(token, BINDING, 'req-2', T0);
      expect(opened.header).toEqual({ v: 4, iat: T0, exp: T0 + LIMITS.maxLifetimeMs, r: 1 });
      // The header travels readable (authenticated, not encrypted), in its one spelling.
      expect(token.slice(0, token.indexOf('.'))).toBe(`4_${T0}_${T0 + LIMITS.maxLifetimeMs}_1`);
      expect(headerOf(token)).toEqual(opened.header);
    });

    it('does not reveal the state in clear', async () => {
      const token = await sealer.seal(
        { secretPlan: 'launch at dawn' },
        {},
        BINDING,
        1,
        undefined,
        T0,
      );
      const clear = Buffer.from(token.replace(/\./g, ''), 'base64url').toString('latin1');
      expect(token).not.toContain('launch');
      expect(clear).not.toContain('launch');
      expect(clear).not.toContain('secretPlan');
    });
  });

  describe('binding', () => {
    const cases: [string, Partial<RequestStateBinding>, RequestStateBindingField][] = [
      ['endpoint', { endpoint: '/other' }, 'endpoint'],
      ['protocolVersion', { protocolVersion: '2025-11-25' }, 'protocol_version'],
      ['method', { method: 'prompts/get' }, 'operation'],
      ['target', { target: 'transfer_funds_2' }, 'operation'],
      ['partition', { partition: 'client:xyz' }, 'caller'],
      [
        'arguments',
        {
          stableParams: '{"arguments":{"amount":1e3},"name":"transfer_funds"}',
          stableArguments: () => '{"amount":1e3}',
        },
        'arguments',
      ],
      [
        'another bound param',
        { stableParams: '{"_meta":{"x":1},"arguments":{"amount":1e2},"name":"transfer_funds"}' },
        'params',
      ],
      ['the operation definition', { definition: 'def-digest-2' }, 'definition'],
    ];

    it.each(cases)(
      'refuses the state when %s differs (binding_mismatch, naming the field)',
      async (_, change, field) => {
        const token = await sealer.seal({ step: 1 }, {}, BINDING, 'req-1', undefined, T0);
        const error = await errorOf(sealer.open(token, { ...BINDING, ...change }, 'req-2', T0));
        expect([error.reason, error.detail]).toEqual(['binding_mismatch', field]);
      },
    );

    it('refuses the state when a binding field moves into another (no ambiguity between fields)', async () => {
      const token = await sealer.seal(
        {},
        {},
        { ...BINDING, method: 'tools/call', target: 'ab' },
        1,
        undefined,
        T0,
      );
      expect(
        await failureOf(
          sealer.open(token, { ...BINDING, method: 'tools/calla', target: 'b' }, 2, T0),
        ),
      ).toBe('binding_mismatch');
    });

    it('carries the flow id minted on round 1 through every later round', async () => {
      const first = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      const opened1 = await sealer.open(first, BINDING, 2, T0);
      expect(opened1.flow.id).toMatch(/^[0-9a-f-]{36}$/);
      const second = await sealer.seal({}, {}, BINDING, 2, opened1.header, T0, undefined, {
        id: opened1.flow.id,
        trace: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
      expect((await sealer.open(second, BINDING, 3, T0)).flow).toEqual({
        id: opened1.flow.id,
        trace: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
    });

    it('refuses a state of format 3 (an earlier build) as malformed, saying so', async () => {
      const token = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      const error = await errorOf(sealer.open(`3${token.slice(1)}`, BINDING, 2, T0));
      expect([error.reason, error.detail]).toEqual(['malformed', 'earlier_format']);
    });
  });

  describe('lifetime and rounds', () => {
    it('opens until just before exp and is expired from exp on', async () => {
      const token = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      await expect(
        sealer.open(token, BINDING, 2, T0 + LIMITS.maxLifetimeMs - 1),
      ).resolves.toBeDefined();
      expect(await failureOf(sealer.open(token, BINDING, 2, T0 + LIMITS.maxLifetimeMs))).toBe(
        'expired',
      );
      expect(await failureOf(sealer.open(token, BINDING, 2, T0 + 10 * LIMITS.maxLifetimeMs))).toBe(
        'expired',
      );
    });

    it('re-emission keeps iat and exp, increments the round and records the new request id', async () => {
      const first = await sealer.seal({ step: 1 }, {}, BINDING, 'req-1', undefined, T0);
      const opened1 = await sealer.open(first, BINDING, 'req-2', T0 + 60_000);
      const second = await sealer.seal(
        { step: 2 },
        { code: 'elicitation' },
        BINDING,
        'req-2',
        opened1.header,
        T0 + 60_000,
      );
      const opened2 = await sealer.open(second, BINDING, 'req-3', T0 + 120_000);
      expect(opened2.header).toEqual({
        v: 4,
        iat: T0,
        exp: T0 + LIMITS.maxLifetimeMs,
        r: 2,
      });
      expect(opened2.value).toEqual({ step: 2 });
      expect(opened2.askedKinds).toEqual({ code: 'elicitation' });
    });

    it('does not extend the lifetime by re-emitting: a continued flow still expires at the first exp', async () => {
      const first = await sealer.seal({}, {}, BINDING, 'a', undefined, T0);
      const { header } = await sealer.open(first, BINDING, 'b', T0 + 800_000);
      const second = await sealer.seal({}, {}, BINDING, 'b', header, T0 + 800_000);
      expect(await failureOf(sealer.open(second, BINDING, 'c', T0 + LIMITS.maxLifetimeMs))).toBe(
        'expired',
      );
    });

    it('refuses to seal a continuation of an already expired flow (expired)', async () => {
      const previous = earlierRound(1, T0 + 10);
      expect(await failureOf(sealer.seal({}, {}, BINDING, 'b', previous, T0 + 10))).toBe('expired');
    });

    it('refuses to seal past the last round (too_many_rounds)', async () => {
      const atLimit = earlierRound(LIMITS.maxRounds);
      expect(await failureOf(sealer.seal({}, {}, BINDING, 'b', atLimit, T0))).toBe(
        'too_many_rounds',
      );
      const beforeLimit = { ...atLimit, r: LIMITS.maxRounds - 1 };
      const last = await sealer.seal({}, {}, BINDING, 'b', beforeLimit, T0);
      expect((await sealer.open(last, BINDING, 'c', T0)).header.r).toBe(LIMITS.maxRounds);
    });

    it('walks a whole flow of maxRounds states, then refuses one more', async () => {
      const small = sealerWith({ maxRounds: 3 }, protector);
      let header: RequestStateHeader | undefined;
      for (let round = 1; round <= 3; round++) {
        const token = await small.seal({ round }, {}, BINDING, `req-${round}`, header, T0 + round);
        ({ header } = await small.open(token, BINDING, `req-${round + 1}`, T0 + round));
        expect(header.r).toBe(round);
      }
      expect(await failureOf(small.seal({}, {}, BINDING, 'req-4', header, T0 + 4))).toBe(
        'too_many_rounds',
      );
    });

    it('refuses on open a state whose round exceeds limits that shrank since it was sealed (too_many_rounds)', async () => {
      let header: RequestStateHeader | undefined;
      let token = '';
      for (let round = 1; round <= 3; round++) {
        token = await sealer.seal({}, {}, BINDING, `req-${round}`, header, T0);
        ({ header } = await sealer.open(token, BINDING, `req-${round + 1}`, T0));
      }
      expect(
        await failureOf(sealerWith({ maxRounds: 2 }, protector).open(token, BINDING, 'req-9', T0)),
      ).toBe('too_many_rounds');
      await expect(
        sealerWith({ maxRounds: 3 }, protector).open(token, BINDING, 'req-9', T0),
      ).resolves.toBeDefined();
    });
  });

  describe('limits of the opening instance', () => {
    const DAY = 86_400_000;

    it('refuses a state older than its own lifetime allows, whatever exp says (expired)', async () => {
      const token = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      const strict = sealerWith({ maxLifetimeMs: 1_000 }, protector);
      await expect(strict.open(token, BINDING, 2, T0 + 999)).resolves.toBeDefined();
      expect(await failureOf(strict.open(token, BINDING, 2, T0 + 1_000))).toBe('expired');
      expect(await failureOf(strict.open(token, BINDING, 2, T0 + 1_500))).toBe('expired');
      // The issuing instance, with its longer lifetime, still opens it.
      await expect(sealer.open(token, BINDING, 2, T0 + 1_500)).resolves.toBeDefined();
    });

    it('still honours the state’s own exp when this instance allows longer (expired)', async () => {
      const token = await sealerWith({ maxLifetimeMs: 1_000 }, protector).seal(
        {},
        {},
        BINDING,
        1,
        undefined,
        T0,
      );
      expect(await failureOf(sealer.open(token, BINDING, 2, T0 + 1_000))).toBe('expired');
    });

    it('brings exp forward when a stricter instance continues the flow, so laxer ones refuse it too', async () => {
      const first = await sealer.seal({}, {}, BINDING, 'a', undefined, T0);
      const strict = sealerWith({ maxLifetimeMs: 60_000 }, protector);
      const { header } = await strict.open(first, BINDING, 'b', T0 + 10_000);
      const second = await strict.seal({}, {}, BINDING, 'b', header, T0 + 10_000);
      const reopened = await sealer.open(second, BINDING, 'c', T0 + 59_999);
      expect(reopened.header).toMatchObject({ iat: T0, exp: T0 + 60_000, r: 2 });
      expect(await failureOf(sealer.open(second, BINDING, 'c', T0 + 60_000))).toBe('expired');
    });

    it('refuses to seal a continuation once this instance’s lifetime is over (expired)', async () => {
      const previous = earlierRound(1);
      const strict = sealerWith({ maxLifetimeMs: 1_000 }, protector);
      expect(await failureOf(strict.seal({}, {}, BINDING, 'b', previous, T0 + 1_000))).toBe(
        'expired',
      );
      const token = await strict.seal({}, {}, BINDING, 'b', previous, T0 + 999);
      expect((await strict.open(token, BINDING, 'c', T0 + 999)).header.exp).toBe(T0 + 1_000);
    });

    it('refuses a state issued by a faster clock beyond the skew tolerance (malformed)', async () => {
      const ahead = await sealer.seal({}, {}, BINDING, 1, undefined, T0 + CLOCK_SKEW_TOLERANCE_MS);
      await expect(sealer.open(ahead, BINDING, 2, T0)).resolves.toBeDefined();
      const further = await sealer.seal(
        {},
        {},
        BINDING,
        1,
        undefined,
        T0 + CLOCK_SKEW_TOLERANCE_MS + 1,
      );
      expect(await failureOf(sealer.open(further, BINDING, 2, T0))).toBe('malformed');
      await expect(sealer.open(further, BINDING, 2, T0 + 1)).resolves.toBeDefined();
    });

    it('refuses a state whose round is past a lowered maxRounds, at the boundary (too_many_rounds)', async () => {
      const previous = earlierRound(4);
      const fifth = await sealer.seal({}, {}, BINDING, 'b', previous, T0);
      await expect(
        sealerWith({ maxRounds: 5 }, protector).open(fifth, BINDING, 'c', T0),
      ).resolves.toBeDefined();
      expect(
        await failureOf(sealerWith({ maxRounds: 4 }, protector).open(fifth, BINDING, 'c', T0)),
      ).toBe('too_many_rounds');
    });

    it('seals and opens the largest header it can emit (30-day lifetime, round 1,000, far-future clock)', async () => {
      const widest = sealerWith({ maxLifetimeMs: 30 * DAY, maxRounds: 1_000 }, protector);
      const iat = Number.MAX_SAFE_INTEGER - 30 * DAY;
      const previous: RequestStateHeader = {
        v: 3,
        iat,
        exp: iat + 30 * DAY,
        r: 999,
      };
      const token = await widest.seal({}, {}, BINDING, 'b'.repeat(10_000), previous, iat);
      expect(token.indexOf('.')).toBeLessThanOrEqual(40);
      expect((await widest.open(token, BINDING, 'c', iat)).header.r).toBe(1_000);
    });

    it('refuses a header past what the format holds before decrypting (malformed)', async () => {
      const token = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      const tail = token.slice(token.indexOf('.'));
      for (const header of [
        `4_${T0}_${T0 + 1}_10000`,
        `4_${'9'.repeat(17)}_${T0}_1`,
        `4_${T0}_${T0 + 31 * DAY}_1`,
        `4_${T0}_${T0}_1`,
        `4_${T0}_${T0 + 1}_0`,
      ]) {
        const failing = jest.spyOn(protector, 'open');
        expect(await failureOf(sealer.open(`${header}${tail}`, BINDING, 2, T0))).toBe('malformed');
        expect(failing).not.toHaveBeenCalled();
        failing.mockRestore();
      }
    });
  });

  describe('request ids', () => {
    it('binds an id of any length in fixed room: a 10,000-character id seals and opens', async () => {
      const long = `id-${'x'.repeat(9_997)}`;
      // 62 characters: the longest id kept as it is (its canonical JSON adds two quotes).
      const longestClear = await sealer.seal(
        { step: 1 },
        {},
        BINDING,
        'a'.repeat(62),
        undefined,
        T0,
      );
      const token = await sealer.seal({ step: 1 }, {}, BINDING, long, undefined, T0);
      expect(token.length).toBeLessThanOrEqual(longestClear.length);
      const opened = await sealer.open(token, BINDING, `${long}y`, T0);
      expect(opened.value).toEqual({ step: 1 });
      const next = await sealer.seal({ step: 2 }, {}, BINDING, `${long}y`, opened.header, T0);
      expect(await failureOf(sealer.open(next, BINDING, `${long}y`, T0))).toBe(
        'replayed_request_id',
      );
      expect((await sealer.open(next, BINDING, long, T0)).value).toEqual({ step: 2 });
      expect(await failureOf(sealer.open(token, BINDING, long, T0))).toBe('replayed_request_id');
    });

    it('keys ids as JSON-RPC compares them: by value for numbers, 1 and "1" apart', () => {
      expect(requestIdKey(1)).toBe(requestIdKey(1.0));
      expect(requestIdKey(1000)).toBe(requestIdKey(1e3));
      expect(requestIdKey(0)).toBe(requestIdKey(-0));
      expect(requestIdKey(1)).not.toBe(requestIdKey('1'));
      expect(requestIdKey(0.5)).not.toBe(requestIdKey('5e-1'));
      expect(requestIdKey(Infinity)).not.toBe(requestIdKey('Infinity'));
      expect(requestIdKey(Infinity)).not.toBe(requestIdKey(-Infinity));
      expect(requestIdKey('x'.repeat(100_000))).not.toBe(requestIdKey('x'.repeat(100_001)));
      for (const id of [0, 1.5, -7, 2 ** 60, '', 'a', 'x'.repeat(100_000), Infinity])
        expect(requestIdKey(id).length).toBeLessThanOrEqual(64);
    });
  });

  describe('replay', () => {
    it('refuses the state on the request id that emitted it (replayed_request_id)', async () => {
      const token = await sealer.seal({}, {}, BINDING, 'req-1', undefined, T0);
      expect(await failureOf(sealer.open(token, BINDING, 'req-1', T0))).toBe('replayed_request_id');
    });

    it('compares ids as JSON-RPC does: 7 and "7" are different ids', async () => {
      const token = await sealer.seal({}, {}, BINDING, 7, undefined, T0);
      expect(await failureOf(sealer.open(token, BINDING, 7, T0))).toBe('replayed_request_id');
      await expect(sealer.open(token, BINDING, '7', T0)).resolves.toBeDefined();
      await expect(sealer.open(token, BINDING, 8, T0)).resolves.toBeDefined();
    });
  });

  describe('size limits', () => {
    it('refuses to seal a plaintext over maxDecodedBytes (too_large), and seals one just under it', async () => {
      expect(
        await failureOf(
          sealer.seal('x'.repeat(LIMITS.maxDecodedBytes), {}, BINDING, 1, undefined, T0),
        ),
      ).toBe('too_large');
      // The binding digests and flow id take ~170 bytes of the plaintext: stay a little under.
      const fits = await sealer.seal(
        'x'.repeat(LIMITS.maxDecodedBytes - 400),
        {},
        BINDING,
        1,
        undefined,
        T0,
      );
      expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(LIMITS.maxEncodedBytes);
    });

    it('counts UTF-8 bytes, not characters', async () => {
      const euros = '€'.repeat(Math.ceil(LIMITS.maxDecodedBytes / 3)); // 3 bytes each
      expect(euros.length).toBeLessThan(LIMITS.maxDecodedBytes);
      expect(await failureOf(sealer.seal(euros, {}, BINDING, 1, undefined, T0))).toBe('too_large');
    });

    it('refuses to emit a token over maxEncodedBytes even when the plaintext fits (too_large)', async () => {
      const tight = sealerWith({ maxEncodedBytes: 1000, maxDecodedBytes: 1000 }, protector);
      expect(await failureOf(tight.seal('x'.repeat(900), {}, BINDING, 1, undefined, T0))).toBe(
        'too_large',
      );
    });

    it('refuses to open a token longer than maxEncodedBytes before any work (too_large)', async () => {
      expect(
        await failureOf(sealer.open('a'.repeat(LIMITS.maxEncodedBytes + 1), BINDING, 1, T0)),
      ).toBe('too_large');
      const token = await sealer.seal('x'.repeat(2000), {}, BINDING, 1, undefined, T0);
      const tight = sealerWith(
        { maxEncodedBytes: token.length - 1, maxDecodedBytes: 100 },
        protector,
      );
      expect(await failureOf(tight.open(token, BINDING, 2, T0))).toBe('too_large');
    });

    it('refuses to open a plaintext over maxDecodedBytes when the limit shrank (too_large)', async () => {
      const token = await sealer.seal('x'.repeat(2000), {}, BINDING, 1, undefined, T0);
      expect(
        await failureOf(
          sealerWith({ maxDecodedBytes: 1000 }, protector).open(token, BINDING, 2, T0),
        ),
      ).toBe('too_large');
    });
  });

  describe('tampering', () => {
    it.each([
      ['exp moved later', { exp: T0 + 10 * LIMITS.maxLifetimeMs }],
      ['r reset to 1 on a round-2 state', { r: 1 }],
      ['iat changed', { iat: T0 - 1 }],
    ])('refuses a header with %s (authentication_failed)', async (_, edit) => {
      const first = await sealer.seal({}, {}, BINDING, 'req-1', undefined, T0);
      const second = await sealer.seal(
        {},
        {},
        BINDING,
        'req-2',
        (await sealer.open(first, BINDING, 'req-2', T0)).header,
        T0,
      );
      const edited = spelled({ ...headerOf(second), ...edit });
      expect(
        await failureOf(sealer.open(withHeaderText(second, edited), BINDING, 'req-3', T0)),
      ).toBe('authentication_failed');
    });

    it('refuses the same header values in another spelling before decrypting (malformed)', async () => {
      const token = await sealer.seal({}, {}, BINDING, 'req-1', undefined, T0);
      const exp = T0 + LIMITS.maxLifetimeMs;
      const open = jest.spyOn(protector, 'open');
      for (const text of [
        `4_0${T0}_${exp}_1`,
        `4_${T0}_${exp}_01`,
        `4_${T0}_${exp}_1 `,
        `4_${T0}_${exp}_1_`,
        `4_+${T0}_${exp}_1`,
        `4_${T0}.0_${exp}_1`,
        `4_${T0}e0_${exp}_1`,
        `03_${T0}_${exp}_1`,
        `2_${T0}_${exp}_1`,
        `4_${T0}_${exp}`,
        Buffer.from(canonicalJson({ v: 3, iat: T0, exp, r: 1 })).toString('base64url'),
      ]) {
        expect(
          await failureOf(sealer.open(withHeaderText(token, text), BINDING, 'req-2', T0)),
        ).toBe('malformed');
      }
      expect(open).not.toHaveBeenCalled();
    });

    it.each([
      ['exp equal to iat', { exp: T0 }],
      ['exp before iat', { exp: T0 - 1 }],
      ['a lifetime over 30 days', { exp: T0 + 30 * 86_400_000 + 1 }],
      ['round 1,001', { r: 1_001 }],
      ['round 0', { r: 0 }],
      ['an exp past the safe integers', { exp: 2 ** 53 }],
    ])('refuses a header with %s (malformed)', async (_, edit) => {
      const token = await sealer.seal({}, {}, BINDING, 'req-1', undefined, T0);
      const text = spelled({ v: 3, iat: T0, exp: T0 + LIMITS.maxLifetimeMs, r: 1, ...edit });
      expect(await failureOf(sealer.open(withHeaderText(token, text), BINDING, 'req-2', T0))).toBe(
        'malformed',
      );
    });

    it.each(['', 'no-dots-at-all', '.', '.abc.def.ghi', 'eyJ2IjoxfQ.a.b.c', '!!!.a.b.c'])(
      'refuses the garbage token %p (malformed)',
      async (token) => {
        expect(await failureOf(sealer.open(token, BINDING, 1, T0))).toBe('malformed');
      },
    );

    it('keeps any text in an id out of the header: U+FFFD and lone surrogates seal and open', async () => {
      const token = await sealer.seal({}, {}, BINDING, 'req-\uFFFD\uD800', undefined, T0);
      expect(token).toMatch(/^[\x21-\x7e]+$/);
      await expect(sealer.open(token, BINDING, 'req-2', T0)).resolves.toBeDefined();
      expect(await failureOf(sealer.open(token, BINDING, 'req-\uFFFD\uD800', T0))).toBe(
        'replayed_request_id',
      );
    });

    it('refuses a sealed part from another flow with a valid header (authentication_failed)', async () => {
      const a = await sealer.seal({ who: 'a' }, {}, BINDING, 'req-1', undefined, T0);
      const b = await sealer.seal({ who: 'b' }, {}, BINDING, 'req-1', undefined, T0 + 1);
      const spliced = `${a.slice(0, a.indexOf('.'))}${b.slice(b.indexOf('.'))}`;
      expect(await failureOf(sealer.open(spliced, BINDING, 'req-2', T0))).toBe(
        'authentication_failed',
      );
    });
  });

  describe('custom protectors', () => {
    it('reports a protector that throws something else as protector_failure, on seal and on open', async () => {
      const broken: RequestStateProtector = {
        seal: () => {
          throw new Error('KMS unavailable: secret detail');
        },
        open: () => Promise.reject(new Error('KMS unavailable')),
      };
      const withBroken = sealerWith({}, broken);
      expect(await failureOf(withBroken.seal({}, {}, BINDING, 1, undefined, T0))).toBe(
        'protector_failure',
      );
      const token = await sealer.seal({}, {}, BINDING, 1, undefined, T0);
      expect(await failureOf(withBroken.open(token, BINDING, 2, T0))).toBe('protector_failure');
    });

    it('passes a protector’s own RequestStateProtectionError through', async () => {
      const refusing: RequestStateProtector = {
        seal: async () => 'opaque',
        open: () => {
          throw new RequestStateProtectionError('unknown_key');
        },
      };
      const token = await sealerWith({}, refusing).seal({}, {}, BINDING, 1, undefined, T0);
      expect(await failureOf(sealerWith({}, refusing).open(token, BINDING, 2, T0))).toBe(
        'unknown_key',
      );
    });

    it('gives the protector the header as associated data and the binding inside the plaintext', async () => {
      const seen: { plaintext: string; ad: string }[] = [];
      const recording: RequestStateProtector = {
        seal: (plaintext, ad) => {
          seen.push({
            plaintext: Buffer.from(plaintext).toString('utf8'),
            ad: Buffer.from(ad).toString('utf8'),
          });
          return 'opaque';
        },
        open: () => new Uint8Array(),
      };
      await sealerWith({}, recording).seal({}, {}, BINDING, 'req-1', undefined, T0);
      expect(seen[0].ad).toBe(`4_${T0}_${T0 + LIMITS.maxLifetimeMs}_1`);
      const payload = JSON.parse(seen[0].plaintext) as { b: string; d: string; f: string };
      expect(payload.b).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(payload.d).toMatch(/^[A-Za-z0-9_-]{56}$/);
      // Digests only: no binding value in the plaintext a custom protector sees.
      expect(seen[0].plaintext).not.toContain('client:abc');
    });
  });
});
