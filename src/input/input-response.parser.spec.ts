import { LosslessNumber } from 'lossless-json';
import { parseInputResponse } from './input-response.parser';

describe('parseInputResponse', () => {
  describe('elicitation results', () => {
    it.each(['decline', 'cancel', 'accept'] as const)('reads %s without content', (action) => {
      expect(parseInputResponse({ action })).toEqual({
        kind: 'elicitation',
        action,
        content: undefined,
      });
    });

    it('reads accepted content of strings, exact numbers, booleans and string lists', () => {
      const amount = new LosslessNumber('3.50');
      const parsed = parseInputResponse({
        action: 'accept',
        content: { name: 'Ada', amount, approve: true, colours: ['red', 'blue'], none: [] },
      });
      expect(parsed).toEqual({
        kind: 'elicitation',
        action: 'accept',
        content: { name: 'Ada', amount, approve: true, colours: ['red', 'blue'], none: [] },
      });
      const content = (parsed as { content: Record<string, unknown> }).content;
      expect((content.amount as LosslessNumber).value).toBe('3.50');
      expect(Object.isFrozen(content)).toBe(true);
    });

    it('reads an empty accepted content', () => {
      expect(parseInputResponse({ action: 'accept', content: {} })).toEqual({
        kind: 'elicitation',
        action: 'accept',
        content: {},
      });
    });

    it.each([
      ['a null value', { v: null }],
      ['a nested object', { v: { nested: 'x' } }],
      ['a number list', { v: [new LosslessNumber('1'), new LosslessNumber('2')] }],
      ['a mixed list', { v: ['a', true] }],
      ['a plain JavaScript number', { v: 3 }],
    ])('refuses content with %s', (_, content) => {
      expect(parseInputResponse({ action: 'accept', content })).toBeUndefined();
    });

    it('refuses content on decline or cancel', () => {
      expect(
        parseInputResponse({ action: 'decline', content: { a: 'x' } }, 'elicitation'),
      ).toBeUndefined();
      expect(parseInputResponse({ action: 'cancel', content: {} }, 'elicitation')).toBeUndefined();
    });

    it('refuses content that is not an object', () => {
      for (const content of ['text', ['a'], null, new LosslessNumber('1')]) {
        expect(parseInputResponse({ action: 'accept', content }, 'elicitation')).toBeUndefined();
      }
    });

    it('refuses unknown actions', () => {
      expect(parseInputResponse({ action: 'ACCEPT' }, 'elicitation')).toBeUndefined();
      expect(parseInputResponse({ action: 'approve' }, 'elicitation')).toBeUndefined();
      expect(parseInputResponse({}, 'elicitation')).toBeUndefined();
    });
  });

  describe('sampling results', () => {
    const text = {
      role: 'assistant',
      content: { type: 'text', text: 'Hello' },
      model: 'claude',
      stopReason: 'endTurn',
    };

    it('reads a single content block', () => {
      expect(parseInputResponse(text)).toEqual({
        kind: 'sampling',
        role: 'assistant',
        content: { type: 'text', text: 'Hello' },
        model: 'claude',
        stopReason: 'endTurn',
      });
    });

    it('reads a list of content blocks and no stop reason', () => {
      const parsed = parseInputResponse({
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: 't', name: 'n', input: {} },
        ],
        model: 'm',
      });
      expect(parsed).toMatchObject({ kind: 'sampling', stopReason: undefined });
      expect(Object.isFrozen((parsed as { content: unknown[] }).content)).toBe(true);
    });

    it.each([
      ['a system role', { ...text, role: 'system' }],
      ['no model', { ...text, model: undefined }],
      ['a numeric model', { ...text, model: 1 }],
      ['content without type', { ...text, content: { text: 'x' } }],
      ['a string content', { ...text, content: 'Hello' }],
      [
        'a content list with an untyped block',
        { ...text, content: [{ type: 'text', text: 'a' }, { text: 'b' }] },
      ],
      ['a numeric stop reason', { ...text, stopReason: 1 }],
    ])('refuses %s', (_, value) => {
      expect(parseInputResponse(value, 'sampling')).toBeUndefined();
      expect(parseInputResponse(value)).toBeUndefined();
    });
  });

  describe('roots results', () => {
    it('reads roots with and without names, dropping other members', () => {
      expect(
        parseInputResponse({
          roots: [
            { uri: 'file:///a', name: 'A' },
            { uri: 'file:///b', extra: 1 },
          ],
        }),
      ).toEqual({
        kind: 'roots',
        roots: [{ uri: 'file:///a', name: 'A' }, { uri: 'file:///b' }],
      });
    });

    it('reads an empty list', () => {
      expect(parseInputResponse({ roots: [] })).toEqual({ kind: 'roots', roots: [] });
    });

    it.each([
      ['roots not a list', { roots: {} }],
      ['a root without uri', { roots: [{ name: 'x' }] }],
      ['a numeric name', { roots: [{ uri: 'file:///a', name: 1 }] }],
      ['a string root', { roots: ['file:///a'] }],
    ])('refuses %s', (_, value) => {
      expect(parseInputResponse(value, 'roots')).toBeUndefined();
    });
  });

  it.each([null, 'accept', ['action'], 1, new LosslessNumber('1'), undefined])(
    'refuses the non-object %p',
    (value) => {
      expect(parseInputResponse(value)).toBeUndefined();
    },
  );

  it('restricts to the expected kind when it is known', () => {
    const roots = { roots: [] };
    const elicitation = { action: 'cancel' };
    expect(parseInputResponse(roots, 'elicitation')).toBeUndefined();
    expect(parseInputResponse(roots, 'sampling')).toBeUndefined();
    expect(parseInputResponse(roots, 'roots')).toEqual({ kind: 'roots', roots: [] });
    expect(parseInputResponse(elicitation, 'roots')).toBeUndefined();
    expect(parseInputResponse(elicitation, 'elicitation')).toEqual({
      kind: 'elicitation',
      action: 'cancel',
      content: undefined,
    });
  });

  it('without an expected kind, takes the first shape that matches', () => {
    expect(parseInputResponse({ action: 'decline' })?.kind).toBe('elicitation');
    expect(
      parseInputResponse({ role: 'user', content: { type: 'text', text: 'x' }, model: 'm' })?.kind,
    ).toBe('sampling');
    expect(parseInputResponse({ roots: [] })?.kind).toBe('roots');
  });

  describe('the expected kind', () => {
    const decline = { action: 'decline' };

    it('restricts the response to that kind', () => {
      expect(parseInputResponse(decline, 'elicitation')).toMatchObject({ kind: 'elicitation' });
      expect(parseInputResponse(decline, 'roots')).toBeUndefined();
    });

    it.each([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'])(
      'matches nothing when it is an unknown kind such as "%s", without throwing',
      (kind) => {
        expect(
          parseInputResponse(decline, kind as Parameters<typeof parseInputResponse>[1]),
        ).toBeUndefined();
      },
    );
  });

  it('keeps a "__proto__" content field as a field', () => {
    const content = Object.fromEntries([
      ['__proto__', ['a']],
      ['name', 'Ada'],
    ]) as Record<string, unknown>;
    const parsed = parseInputResponse({ action: 'accept', content }) as {
      content: Record<string, unknown>;
    };
    expect(Object.keys(parsed.content)).toEqual(['__proto__', 'name']);
    expect(Object.hasOwn(parsed.content, '__proto__')).toBe(true);
    expect(Array.isArray(Object.getPrototypeOf(parsed.content))).toBe(false);
  });

  it('copies and freezes null-prototype sampling content like any JSON object', () => {
    const block = Object.assign(Object.create(null) as Record<string, unknown>, {
      type: 'text',
      text: 'hi',
    });
    const parsed = parseInputResponse({ role: 'assistant', model: 'm', content: block }) as {
      content: Record<string, unknown>;
    };
    expect(parsed.content).toEqual({ type: 'text', text: 'hi' });
    expect(parsed.content).not.toBe(block);
    expect(Object.isFrozen(parsed.content)).toBe(true);
  });
});
