import type { IncomingHttpHeaders } from 'node:http';
import {
  decodeParamHeader,
  paramHeaderProblem,
  scanParamHeaders,
  type ParamHeaderDeclaration,
} from './param-header.validator';

function b64(text: string): string {
  return `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

describe('decodeParamHeader', () => {
  it('returns plain values literally', () => {
    expect(decodeParamHeader('eu-west-1')).toBe('eu-west-1');
    expect(decodeParamHeader('')).toBe('');
    expect(decodeParamHeader('=?base64?')).toBe('=?base64?');
  });

  it('decodes the base64 sentinel as UTF-8', () => {
    expect(decodeParamHeader(b64('Zoë & co'))).toBe('Zoë & co');
    expect(decodeParamHeader(b64(' leading and trailing '))).toBe(' leading and trailing ');
    expect(decodeParamHeader('=?base64??=')).toBe('');
  });

  it.each([
    ['the URL alphabet', '=?base64?-_-_?='],
    ['a missing pad', '=?base64?SGk?='],
    ['a length that is not a multiple of 4', '=?base64?SGVsbG8?='],
    ['whitespace', '=?base64?SGVs bG8=?='],
    ['padding in the middle', '=?base64?SG=sbG8=?='],
    ['three pads', '=?base64?S===?='],
    ['an invalid character', '=?base64?SGVs*G8=?='],
  ])('refuses base64 with %s', (_, value) => {
    expect(decodeParamHeader(value)).toBeUndefined();
  });
});

describe('decodeParamHeader leniency', () => {
  it('accepts non-canonical trailing bits (the decoded value is still compared with the argument)', () => {
    expect(decodeParamHeader('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeParamHeader('=?base64?SGVsbG9=?=')).toBe('Hello');
  });
});

describe('scanParamHeaders', () => {
  it('finds x-mcp-header properties, nested through properties chains', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        plain: { type: 'string' },
        target: {
          type: 'object',
          properties: { id: { type: 'string', 'x-mcp-header': 'Target-Id' } },
        },
        empty: { type: 'string', 'x-mcp-header': '' },
      },
    };
    expect(scanParamHeaders(schema)).toEqual([
      { path: ['region'], name: 'Region', type: 'string' },
      { path: ['count'], name: 'Count', type: 'integer' },
      { path: ['target', 'id'], name: 'Target-Id', type: 'string' },
    ]);
  });

  it('finds nothing in schemas without properties', () => {
    expect(scanParamHeaders({ type: 'object' })).toEqual([]);
    expect(scanParamHeaders(null)).toEqual([]);
  });
});

describe('paramHeaderProblem', () => {
  const region: ParamHeaderDeclaration = { path: ['region'], name: 'Region', type: 'string' };
  const count: ParamHeaderDeclaration = { path: ['count'], name: 'Count', type: 'integer' };
  const price: ParamHeaderDeclaration = { path: ['price'], name: 'Price', type: 'number' };
  const flag: ParamHeaderDeclaration = { path: ['flag'], name: 'Flag', type: 'boolean' };
  const nested: ParamHeaderDeclaration = {
    path: ['target', 'id'],
    name: 'Target-Id',
    type: 'string',
  };

  function problem(
    declarations: ParamHeaderDeclaration[],
    args: unknown,
    headers: IncomingHttpHeaders,
  ): string | undefined {
    return paramHeaderProblem(declarations, args, headers);
  }

  it('accepts matching literal and base64 values, with header names in any case', () => {
    expect(
      problem([region], { region: 'eu-west-1' }, { 'mcp-param-region': 'eu-west-1' }),
    ).toBeUndefined();
    expect(
      problem([region], { region: 'Zoë' }, { 'mcp-param-region': b64('Zoë') }),
    ).toBeUndefined();
    expect(
      problem([nested], { target: { id: 'a1' } }, { 'mcp-param-target-id': 'a1' }),
    ).toBeUndefined();
  });

  it('trims surrounding whitespace of the header value, and base64 keeps inner spaces exact', () => {
    expect(problem([region], { region: 'eu' }, { 'mcp-param-region': '  eu ' })).toBeUndefined();
    expect(
      problem([region], { region: ' eu ' }, { 'mcp-param-region': b64(' eu ') }),
    ).toBeUndefined();
  });

  it('names a missing header', () => {
    expect(problem([region], { region: 'eu' }, {})).toBe('Mcp-Param-Region header is missing');
  });

  it('names a header whose argument is absent or null', () => {
    expect(problem([region], {}, { 'mcp-param-region': 'eu' })).toBe(
      'Mcp-Param-Region is set but the argument is absent',
    );
    expect(problem([region], { region: null }, { 'mcp-param-region': 'eu' })).toBe(
      'Mcp-Param-Region is set but the argument is absent',
    );
  });

  it('accepts an absent argument without its header', () => {
    expect(problem([region], {}, {})).toBeUndefined();
    expect(problem([nested], { target: 'not-an-object' }, {})).toBeUndefined();
    expect(problem([region], undefined, {})).toBeUndefined();
  });

  it('names a mismatch', () => {
    expect(problem([region], { region: 'eu' }, { 'mcp-param-region': 'us' })).toBe(
      'Mcp-Param-Region does not match the argument',
    );
    expect(problem([region], { region: 'eu' }, { 'mcp-param-region': 'EU' })).toBe(
      'Mcp-Param-Region does not match the argument',
    );
    expect(problem([region], { region: 'eu' }, { 'mcp-param-region': b64('us') })).toBe(
      'Mcp-Param-Region does not match the argument',
    );
  });

  it('names invalid base64', () => {
    expect(problem([region], { region: 'eu' }, { 'mcp-param-region': '=?base64?ZXU?=' })).toBe(
      'Mcp-Param-Region carries invalid base64',
    );
  });

  it('compares numbers by value for number and integer declarations', () => {
    for (const header of ['42', '42.0', '4.2e1', '420e-1', '42E0']) {
      expect(problem([count], { count: 42 }, { 'mcp-param-count': header })).toBeUndefined();
    }
    expect(problem([price], { price: 3.5 }, { 'mcp-param-price': '3.50' })).toBeUndefined();
    expect(problem([price], { price: -0.25 }, { 'mcp-param-price': '-0.25' })).toBeUndefined();
  });

  it.each(['042', '+42', '42.', '.5', '0x2A', '42 apples', '43', 'Infinity', ''])(
    'refuses the number spelling %p for 42',
    (header) => {
      expect(problem([count], { count: 42 }, { 'mcp-param-count': header })).toBe(
        'Mcp-Param-Count does not match the argument',
      );
    },
  );

  it('compares other values with their JSON text', () => {
    expect(problem([flag], { flag: true }, { 'mcp-param-flag': 'true' })).toBeUndefined();
    expect(problem([flag], { flag: true }, { 'mcp-param-flag': 'True' })).toBe(
      'Mcp-Param-Flag does not match the argument',
    );
    expect(problem([region], { region: 7 }, { 'mcp-param-region': '7' })).toBeUndefined();
  });

  it('reports the first problem across several declarations', () => {
    const args = { region: 'eu', count: 2 };
    expect(
      problem([region, count], args, { 'mcp-param-region': 'eu', 'mcp-param-count': '2' }),
    ).toBeUndefined();
    expect(problem([region, count], args, { 'mcp-param-region': 'eu' })).toBe(
      'Mcp-Param-Count header is missing',
    );
  });

  it('joins repeated headers, so a duplicate never matches silently', () => {
    expect(
      problem(
        [region],
        { region: 'eu' },
        { 'mcp-param-region': ['eu', 'eu'] as unknown as string },
      ),
    ).toBe('Mcp-Param-Region does not match the argument');
  });

  describe('arguments named like Object.prototype members', () => {
    const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

    it.each(names)('needs no header for an absent "%s" argument', (name) => {
      const declaration: ParamHeaderDeclaration = {
        path: [name],
        name: 'Mirrored',
        type: 'string',
      };
      expect(problem([declaration], {}, {})).toBeUndefined();
      const below: ParamHeaderDeclaration = {
        path: ['target', name],
        name: 'Mirrored',
        type: 'string',
      };
      expect(problem([below], { target: {} }, {})).toBeUndefined();
      expect(problem([below], { target: ['x'] }, {})).toBeUndefined();
    });

    it.each(names)('checks a "%s" argument that was sent', (name) => {
      const declaration: ParamHeaderDeclaration = {
        path: [name],
        name: 'Mirrored',
        type: 'string',
      };
      const args = Object.fromEntries([[name, 'x']]) as Record<string, unknown>;
      expect(problem([declaration], args, { 'mcp-param-mirrored': 'x' })).toBeUndefined();
      expect(problem([declaration], args, {})).toBe('Mcp-Param-Mirrored header is missing');
    });
  });
});
