import type { ClientCapabilities } from '@modelcontextprotocol/server';
import {
  capabilityFor,
  clientSupports,
  missingCapabilities,
} from './client-capability-requirements';
import type { McpInputRequestType } from './mcp-input-request-type';

const ALL: McpInputRequestType[] = [
  'elicitation.form',
  'elicitation.url',
  'sampling',
  'sampling.tools',
  'roots',
];

function supported(capabilities: Record<string, unknown>): McpInputRequestType[] {
  return ALL.filter((type) => clientSupports(capabilities as ClientCapabilities, type));
}

describe('client capability requirements', () => {
  it('maps each input request type to the capability fragment it needs', () => {
    expect(capabilityFor('elicitation.form')).toEqual({ elicitation: { form: {} } });
    expect(capabilityFor('elicitation.url')).toEqual({ elicitation: { url: {} } });
    expect(capabilityFor('sampling')).toEqual({ sampling: {} });
    expect(capabilityFor('sampling.tools')).toEqual({ sampling: { tools: {} } });
    expect(capabilityFor('roots')).toEqual({ roots: {} });
  });

  it.each([
    ['no capabilities', {}, []],
    ['elicitation.url', { elicitation: { url: {} } }, ['elicitation.url']],
    ['elicitation.form', { elicitation: { form: {} } }, ['elicitation.form']],
    [
      'both elicitation modes',
      { elicitation: { form: {}, url: {} } },
      ['elicitation.form', 'elicitation.url'],
    ],
    ['a bare elicitation {} (counts as form)', { elicitation: {} }, ['elicitation.form']],
    ['sampling without tools', { sampling: {} }, ['sampling']],
    ['sampling with tools', { sampling: { tools: {} } }, ['sampling', 'sampling.tools']],
    ['roots', { roots: {} }, ['roots']],
    ['roots with listChanged', { roots: { listChanged: true } }, ['roots']],
    ['everything', { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} }, ALL],
    ['unrelated capabilities only', { experimental: { foo: {} } }, []],
  ])('with %s the client supports exactly the derived types', (_, capabilities, expected) => {
    expect(supported(capabilities)).toEqual(expected);
  });

  it('does not count elicitation { url: {} } alone as form support', () => {
    expect(
      clientSupports({ elicitation: { url: {} } } as ClientCapabilities, 'elicitation.form'),
    ).toBe(false);
  });

  describe('missingCapabilities', () => {
    it('is undefined when everything asked for is supported, or nothing is asked for', () => {
      expect(
        missingCapabilities({ sampling: { tools: {} } } as ClientCapabilities, [
          'sampling',
          'sampling.tools',
        ]),
      ).toBeUndefined();
      expect(missingCapabilities({}, [])).toBeUndefined();
    });

    it('lists one missing capability', () => {
      expect(missingCapabilities({}, ['roots'])).toEqual({ roots: {} });
    });

    it('merges several missing capabilities into one object', () => {
      expect(
        missingCapabilities({}, ['elicitation.form', 'elicitation.url', 'sampling.tools', 'roots']),
      ).toEqual({
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: {},
      });
    });

    it('merges sampling and sampling.tools into one sampling entry', () => {
      expect(missingCapabilities({}, ['sampling', 'sampling.tools'])).toEqual({
        sampling: { tools: {} },
      });
      expect(missingCapabilities({}, ['sampling.tools', 'sampling'])).toEqual({
        sampling: { tools: {} },
      });
    });

    it('lists only what is missing', () => {
      expect(
        missingCapabilities({ elicitation: { url: {} }, sampling: {} } as ClientCapabilities, [
          'elicitation.form',
          'elicitation.url',
          'sampling',
          'sampling.tools',
        ]),
      ).toEqual({
        elicitation: { form: {} },
        sampling: { tools: {} },
      });
    });

    it('accepts any iterable, including a Set, and repeated types', () => {
      expect(missingCapabilities({}, new Set<McpInputRequestType>(['roots', 'roots']))).toEqual({
        roots: {},
      });
      expect(missingCapabilities({}, ['roots', 'roots'])).toEqual({ roots: {} });
    });
  });
});
