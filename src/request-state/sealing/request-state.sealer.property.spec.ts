import fc from 'fast-check';
import { BINDING, T0, sealerWith } from './request-state-sealer.spec-helper';

/** Characters an edit may introduce: the token alphabet, its near misses, and a few oddities. */
const CHARACTERS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  '.',
  '=',
  '+',
  '/',
  ' ',
  '%',
  '~',
  'é',
  '\u0000',
  '\uFFFD',
];

type Edit =
  | { kind: 'substitute'; at: number; char: string }
  | { kind: 'insert'; at: number; char: string }
  | { kind: 'delete'; at: number }
  | { kind: 'truncate'; at: number };

function apply(token: string, edit: Edit): string {
  const at = edit.at % (edit.kind === 'insert' ? token.length + 1 : token.length);
  switch (edit.kind) {
    case 'substitute':
      return token.slice(0, at) + edit.char + token.slice(at + 1);
    case 'insert':
      return token.slice(0, at) + edit.char + token.slice(at);
    case 'delete':
      return token.slice(0, at) + token.slice(at + 1);
    case 'truncate':
      return token.slice(0, at);
  }
}

describe('RequestStateSealer (property)', () => {
  const sealer = sealerWith();
  let tokens: string[];

  beforeAll(async () => {
    // A few tokens of different shapes: first round, continued round, numeric id, larger value.
    const first = await sealer.seal(
      { step: 1 },
      { approval: 'elicitation' },
      BINDING,
      'req-1',
      undefined,
      T0,
    );
    const { header } = await sealer.open(first, BINDING, 'req-2', T0);
    tokens = [
      first,
      await sealer.seal({ step: 2, note: 'ünïcode' }, {}, BINDING, 'req-2', header, T0),
      await sealer.seal([1, 2, 3], {}, BINDING, 42, undefined, T0),
      await sealer.seal(
        { blob: 'x'.repeat(300) },
        { a: 'sampling', b: 'roots' },
        BINDING,
        'r',
        undefined,
        T0,
      ),
    ];
    for (const token of tokens)
      await expect(sealer.open(token, BINDING, 'other-request', T0)).resolves.toBeDefined();
  });

  it('never accepts a token with any single-character substitution, insertion, deletion or truncation', async () => {
    const edit: fc.Arbitrary<Edit> = fc.oneof(
      fc.record({
        kind: fc.constant('substitute' as const),
        at: fc.nat(),
        char: fc.constantFrom(...CHARACTERS),
      }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        char: fc.constantFrom(...CHARACTERS),
      }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), edit, async (which, change) => {
        const token = tokens[which];
        const edited = apply(token, change);
        fc.pre(edited !== token);
        await expect(sealer.open(edited, BINDING, 'other-request', T0)).rejects.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts a token whose bits were flipped anywhere in its decoded segments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 3 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (which, segmentPick, bytePick, bit) => {
          const segments = tokens[which].split('.');
          const segment = segmentPick % segments.length;
          const bytes = Buffer.from(segments[segment], 'base64url');
          bytes[bytePick % bytes.length] ^= 1 << bit;
          segments[segment] = bytes.toString('base64url');
          await expect(
            sealer.open(segments.join('.'), BINDING, 'other-request', T0),
          ).rejects.toThrow();
        },
      ),
      { numRuns: 2000 },
    );
  });
});
