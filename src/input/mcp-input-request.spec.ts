import { McpInputDeclaration } from './mcp-input-declaration';
import { McpInputRequest, type CreateMessageParams } from './mcp-input-request';
import { inputRequestPolicy, type InputRequestPolicy } from './input-request-policy';
import { InvalidInputRequestError } from './invalid-input-request.error';
import { ConceptSecretFieldPolicy } from './secret-field.policy';

const SCHEMA = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve?' } },
  required: ['approve'],
};
const SAMPLING: CreateMessageParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }],
  maxTokens: 100,
};

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('McpInputRequest', () => {
  let saved: InputRequestPolicy;

  beforeEach(() => {
    saved = inputRequestPolicy.get();
    inputRequestPolicy.set({ secrets: new ConceptSecretFieldPolicy(), development: false });
  });

  afterEach(() => {
    inputRequestPolicy.set(saved);
  });

  describe('elicitForm', () => {
    it('builds a form elicitation with the wire method and params', () => {
      const request = McpInputRequest.elicitForm({
        message: 'Approve the transfer?',
        requestedSchema: SCHEMA,
      });
      expect(request.type).toBe('elicitation.form');
      expect(request.method).toBe('elicitation/create');
      expect(request.params).toEqual({
        mode: 'form',
        message: 'Approve the transfer?',
        requestedSchema: SCHEMA,
      });
      expect(request.toJSON()).toEqual({
        method: 'elicitation/create',
        params: { mode: 'form', message: 'Approve the transfer?', requestedSchema: SCHEMA },
      });
    });

    it.each(['', '   ', undefined, 7])('refuses the message %p', (message) => {
      expect(() =>
        McpInputRequest.elicitForm({ message: message as string, requestedSchema: SCHEMA }),
      ).toThrow(InvalidInputRequestError);
    });

    it('refuses a nested schema and a secret field', () => {
      expect(() =>
        McpInputRequest.elicitForm({
          message: 'm',
          requestedSchema: { type: 'object', properties: { a: { type: 'object' } } },
        }),
      ).toThrow(InvalidInputRequestError);
      expect(() =>
        McpInputRequest.elicitForm({
          message: 'm',
          requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
        }),
      ).toThrow(/password/);
    });

    it('is immutable, with deep-frozen params copied from the caller', () => {
      const schema = JSON.parse(JSON.stringify(SCHEMA)) as typeof SCHEMA;
      const request = McpInputRequest.elicitForm({ message: 'm', requestedSchema: schema });
      expect(Object.isFrozen(request)).toBe(true);
      expect(isDeepFrozen(request.params)).toBe(true);
      schema.properties.approve.title = 'Changed later';
      expect((request.params.requestedSchema as typeof SCHEMA).properties.approve.title).toBe(
        'Approve?',
      );
      expect(() => {
        (request as { type: string }).type = 'roots';
      }).toThrow(TypeError);
    });

    it('uses the process-wide secret policy, which can be replaced', () => {
      const schema = {
        type: 'object',
        properties: { favouriteColour: { type: 'string' }, password: { type: 'string' } },
      };
      expect(() => McpInputRequest.elicitForm({ message: 'm', requestedSchema: schema })).toThrow(
        /password/,
      );
      inputRequestPolicy.set({
        secrets: {
          secretConcept: ({ name }) =>
            name === 'favouriteColour' ? 'colour preference' : undefined,
        },
        development: false,
      });
      expect(() => McpInputRequest.elicitForm({ message: 'm', requestedSchema: schema })).toThrow(
        /colour preference/,
      );
      expect(() =>
        McpInputRequest.elicitForm({
          message: 'm',
          requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
        }),
      ).not.toThrow();
    });
  });

  describe('elicitUrl', () => {
    it('builds the 2026-07-28 URL elicitation: mode, message and url, no elicitationId', () => {
      const request = McpInputRequest.elicitUrl({
        message: 'Sign in',
        url: 'https://example.com/login?flow=1',
      });
      expect(request.type).toBe('elicitation.url');
      expect(request.method).toBe('elicitation/create');
      expect(request.params).toEqual({
        mode: 'url',
        message: 'Sign in',
        url: 'https://example.com/login?flow=1',
      });
    });

    it('refuses unsafe URLs and follows the development switch for localhost', () => {
      expect(() =>
        McpInputRequest.elicitUrl({ message: 'm', url: 'https://example.com/?token=abc' }),
      ).toThrow(InvalidInputRequestError);
      expect(() =>
        McpInputRequest.elicitUrl({ message: 'm', url: 'http://localhost:3000/cb' }),
      ).toThrow(InvalidInputRequestError);
      inputRequestPolicy.set({ secrets: new ConceptSecretFieldPolicy(), development: true });
      expect(() =>
        McpInputRequest.elicitUrl({ message: 'm', url: 'http://localhost:3000/cb' }),
      ).not.toThrow();
    });

    it('follows the policy of the operation call it is built in, and only there', () => {
      const local = { message: 'm', url: 'http://localhost:8080/login?flow=1' };
      const development = { secrets: new ConceptSecretFieldPolicy(), development: true };
      expect(() =>
        inputRequestPolicy.run(development, () => McpInputRequest.elicitUrl(local)),
      ).not.toThrow();
      expect(() => McpInputRequest.elicitUrl(local)).toThrow(InvalidInputRequestError);
    });

    it('refuses an empty message', () => {
      expect(() => McpInputRequest.elicitUrl({ message: '', url: 'https://example.com/' })).toThrow(
        InvalidInputRequestError,
      );
    });
  });

  describe('createMessage', () => {
    it('is a plain sampling request without tools', () => {
      const request = McpInputRequest.createMessage(SAMPLING);
      expect(request.type).toBe('sampling');
      expect(request.method).toBe('sampling/createMessage');
      expect(request.toJSON()).toEqual({ method: 'sampling/createMessage', params: SAMPLING });
      expect(isDeepFrozen(request.params)).toBe(true);
    });

    it('needs sampling.tools when it offers tools or a tool choice', () => {
      const tools = [{ name: 'lookup', inputSchema: { type: 'object' as const } }];
      expect(
        McpInputRequest.createMessage({ ...SAMPLING, tools } as CreateMessageParams).type,
      ).toBe('sampling.tools');
      expect(
        McpInputRequest.createMessage({
          ...SAMPLING,
          toolChoice: { mode: 'auto' },
        } as CreateMessageParams).type,
      ).toBe('sampling.tools');
    });

    it.each([
      ['no messages', { ...SAMPLING, messages: [] }],
      [
        'a system-role message',
        { ...SAMPLING, messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] },
      ],
      ['a message without content', { ...SAMPLING, messages: [{ role: 'user' }] }],
      ['maxTokens 0', { ...SAMPLING, maxTokens: 0 }],
      ['fractional maxTokens', { ...SAMPLING, maxTokens: 1.5 }],
      ['missing maxTokens', { messages: SAMPLING.messages }],
    ])('refuses %s', (_, params) => {
      expect(() => McpInputRequest.createMessage(params as unknown as CreateMessageParams)).toThrow(
        InvalidInputRequestError,
      );
    });
  });

  it('listRoots has empty frozen params', () => {
    const request = McpInputRequest.listRoots();
    expect(request.type).toBe('roots');
    expect(request.toJSON()).toEqual({ method: 'roots/list', params: {} });
    expect(Object.isFrozen(request.params)).toBe(true);
  });

  describe('fromDeclaration', () => {
    it('builds each declared kind from raw params', () => {
      expect(
        McpInputRequest.fromDeclaration(McpInputDeclaration.elicitationForm(), {
          message: 'm',
          requestedSchema: SCHEMA,
        }).type,
      ).toBe('elicitation.form');
      expect(
        McpInputRequest.fromDeclaration(McpInputDeclaration.elicitationUrl(), {
          message: 'm',
          url: 'https://example.com/',
        }).type,
      ).toBe('elicitation.url');
      expect(
        McpInputRequest.fromDeclaration(McpInputDeclaration.sampling(), { ...SAMPLING }).type,
      ).toBe('sampling');
      expect(
        McpInputRequest.fromDeclaration(McpInputDeclaration.samplingWithTools(), {
          ...SAMPLING,
          tools: [],
        }).type,
      ).toBe('sampling.tools');
      expect(McpInputRequest.fromDeclaration(McpInputDeclaration.roots(), {}).type).toBe('roots');
    });

    it('refuses sampling params that do not match the declared sampling kind', () => {
      expect(() =>
        McpInputRequest.fromDeclaration(McpInputDeclaration.sampling(), { ...SAMPLING, tools: [] }),
      ).toThrow(/"sampling" declaration/);
      expect(() =>
        McpInputRequest.fromDeclaration(McpInputDeclaration.samplingWithTools(), { ...SAMPLING }),
      ).toThrow(/"sampling.tools" declaration/);
    });

    it('applies the same checks as the factories', () => {
      expect(() =>
        McpInputRequest.fromDeclaration(McpInputDeclaration.elicitationUrl(), {
          message: 'm',
          url: 'http://example.com/',
        }),
      ).toThrow(InvalidInputRequestError);
      expect(() =>
        McpInputRequest.fromDeclaration(McpInputDeclaration.elicitationForm(), {
          message: 'm',
          requestedSchema: { type: 'string' },
        }),
      ).toThrow(InvalidInputRequestError);
    });
  });
});
