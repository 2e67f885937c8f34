import 'reflect-metadata';
import { IsBoolean, IsIn, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';
import { LosslessNumber } from 'lossless-json';
import { McpProtocolException } from '../kit/errors/mcp-protocol.exception';
import type { McpInputResponse } from './mcp-input-response';
import { McpInputResponses } from './mcp-input-responses';

class TransferDto {
  @IsNumber()
  @Min(0.01)
  @Max(1000)
  amount!: number;

  /** Exact decimal text, e.g. "3.50". */
  @IsString()
  exactAmount!: string;

  @IsBoolean()
  approve!: boolean;

  @IsOptional()
  @IsIn(['eur', 'usd'])
  currency?: string;
}

const accepted = (content: Record<string, unknown>): McpInputResponse =>
  ({ kind: 'elicitation', action: 'accept', content }) as McpInputResponse;

describe('McpInputResponses', () => {
  it('is empty on a first round', () => {
    const responses = McpInputResponses.empty();
    expect(responses.isEmpty).toBe(true);
    expect(responses.find('anything')).toBeUndefined();
    expect(responses.unexpectedKeys).toEqual([]);
    expect(responses.asMap().size).toBe(0);
  });

  it('finds a response by key and answers undefined for a missing key', () => {
    const roots: McpInputResponse = { kind: 'roots', roots: [{ uri: 'file:///a' }] };
    const responses = McpInputResponses.from({ roots });
    expect(responses.isEmpty).toBe(false);
    expect(responses.find('roots')).toBe(roots);
    expect(responses.find('other')).toBeUndefined();
  });

  it('builds from a builder too', () => {
    const roots: McpInputResponse = { kind: 'roots', roots: [] };
    const responses = McpInputResponses.builder().response('r', roots).build();
    expect(responses.find('r')).toBe(roots);
  });

  describe('with the keys asked for in the previous round', () => {
    const approval = accepted({ approve: true });
    const injected = accepted({ approve: true });
    const responses = McpInputResponses.from({ approval, injected }, ['approval', 'code']);

    it('hides keys that were not asked for from find()', () => {
      expect(responses.find('approval')).toBe(approval);
      expect(responses.find('injected')).toBeUndefined();
      expect(responses.find('code')).toBeUndefined();
    });

    it('lists them in unexpectedKeys and keeps them in asMap()', () => {
      expect(responses.unexpectedKeys).toEqual(['injected']);
      expect([...responses.asMap().keys()]).toEqual(['approval', 'injected']);
    });

    it('hides unexpected keys from typed find() too', () => {
      const typed = McpInputResponses.from(
        {
          injected: accepted({
            amount: new LosslessNumber('1'),
            exactAmount: new LosslessNumber('1'),
            approve: true,
          }),
        },
        ['approval'],
      );
      expect(typed.find('injected', TransferDto)).toBeUndefined();
    });
  });

  it('without known expected keys, every key is findable and none is unexpected', () => {
    const responses = McpInputResponses.from({ a: accepted({}), b: accepted({}) });
    expect(responses.find('b')).toBeDefined();
    expect(responses.unexpectedKeys).toEqual([]);
  });

  describe('find(key, Dto)', () => {
    /** `content` as an accepted form answer, read back as a TransferDto. */
    const typedTransfer = (content: Record<string, unknown>) =>
      McpInputResponses.from({ transfer: accepted(content) }).find('transfer', TransferDto);

    it('converts a LosslessNumber to a number for a number property and to exact text for a string property', () => {
      const typed = typedTransfer({
        amount: new LosslessNumber('3.50'),
        exactAmount: new LosslessNumber('3.50'),
        approve: true,
        currency: 'eur',
      });
      expect(typed?.action).toBe('accept');
      expect(typed?.content).toBeInstanceOf(TransferDto);
      expect(typed?.content?.amount).toBe(3.5);
      expect(typeof typed?.content?.amount).toBe('number');
      expect(typed?.content?.exactAmount).toBe('3.50');
      expect(typed?.content?.approve).toBe(true);
      expect(typed?.content?.currency).toBe('eur');
    });

    it('keeps the digits of a long decimal in a string property', () => {
      const typed = typedTransfer({
        amount: new LosslessNumber('1'),
        exactAmount: new LosslessNumber('12345678901234567890.01'),
        approve: false,
      });
      expect(typed?.content?.exactAmount).toBe('12345678901234567890.01');
    });

    it.each(['decline', 'cancel'] as const)('answers %s with no content', (action) => {
      const responses = McpInputResponses.from({
        t: { kind: 'elicitation', action, content: undefined },
      });
      expect(responses.find('t', TransferDto)).toEqual({ action, content: undefined });
    });

    it('treats a non-elicitation response as missing', () => {
      const responses = McpInputResponses.from({ t: { kind: 'roots', roots: [] } });
      expect(responses.find('t', TransferDto)).toBeUndefined();
      expect(responses.find('missing', TransferDto)).toBeUndefined();
    });

    it.each([
      [
        'an amount out of range',
        { amount: new LosslessNumber('5000'), exactAmount: new LosslessNumber('1'), approve: true },
      ],
      [
        'an amount given as text',
        { amount: '3.50', exactAmount: new LosslessNumber('1'), approve: true },
      ],
      ['a missing property', { amount: new LosslessNumber('1'), approve: true }],
      [
        'a boolean given as text',
        { amount: new LosslessNumber('1'), exactAmount: 'x', approve: 'yes' },
      ],
      [
        'an unknown currency',
        { amount: new LosslessNumber('1'), exactAmount: 'x', approve: true, currency: 'gbp' },
      ],
    ])(
      'answers invalid content (%s) with McpProtocolException -32602 naming the key',
      (_, content) => {
        const responses = McpInputResponses.from({ transfer: accepted(content) });
        let thrown: unknown;
        try {
          responses.find('transfer', TransferDto);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(McpProtocolException);
        const exception = thrown as McpProtocolException;
        expect(exception.code).toBe(-32602);
        expect(exception.message).toContain('transfer');
        expect(exception.data).toEqual({
          key: 'transfer',
          errors: expect.arrayContaining([expect.any(String)]),
        });
      },
    );
  });

  it('is frozen', () => {
    expect(Object.isFrozen(McpInputResponses.empty())).toBe(true);
  });

  it.each([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'])(
    'converts accepted content with an extra "%s" field to the DTO',
    (name) => {
      const content = Object.fromEntries([
        ['amount', new LosslessNumber('3.50')],
        ['exactAmount', new LosslessNumber('3.50')],
        ['approve', true],
        [name, ['x']],
      ]) as Record<string, unknown>;
      const dto = McpInputResponses.from({ transfer: accepted(content) }).find(
        'transfer',
        TransferDto,
      )?.content;
      expect(dto).toBeInstanceOf(TransferDto);
      expect(dto).toMatchObject({ amount: 3.5, exactAmount: '3.50', approve: true });
      // class-transformer skips names the instance already has (its prototype's members).
      if (name !== 'prototype') expect(Object.hasOwn(dto as object, name)).toBe(false);
    },
  );

  it('keeps responses under keys named like Object.prototype members apart', () => {
    const roots: McpInputResponse = { kind: 'roots', roots: [] };
    const responses = McpInputResponses.from(
      Object.fromEntries([
        ['__proto__', roots],
        ['constructor', roots],
      ]) as Record<string, McpInputResponse>,
      ['constructor'],
    );
    expect(responses.find('constructor')).toBe(roots);
    expect(responses.find('__proto__')).toBeUndefined();
    expect(responses.find('toString')).toBeUndefined();
    expect(responses.unexpectedKeys).toEqual(['__proto__']);
  });
});
