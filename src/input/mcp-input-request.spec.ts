import { McpInputDeclaration } from './mcp-input-declaration';
import { McpInputRequest, type CreateMessageParams } from './mcp-input-request';
import { checkInputRequestPolicy, type InputRequestPolicy } from './input-request-policy';
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
  const production: InputRequestPolicy = {
    secrets: new ConceptSecretFieldPolicy(),
    development: false,
  };
  const emitted = (request: McpInputRequest, policy: InputRequestPolicy = production) =>
    checkInputRequestPolicy(request, policy);

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

    it('refuses a nested schema when built, and a secret field when emitted', () => {
      expect(() =>
        McpInputRequest.elicitForm({
          message: 'm',
          requestedSchema: { type: 'object', properties: { a: { type: 'object' } } },
        }),
      ).toThrow(InvalidInputRequestError);
      const secret = McpInputRequest.elicitForm({
        message: 'm',
        requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
      });
      expect(() => emitted(secret)).toThrow(/password/);
    });

    it('refuses format "password" when built, as a secret whatever the policy', () => {
      expect(() =>
        McpInputRequest.elicitForm({
          message: 'm',
          requestedSchema: {
            type: 'object',
            properties: { pin: { type: 'string', format: 'password' } },
          },
        }),
      ).toThrow(/asks for a secret \(password\)/);
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

    it('is checked against the policy it is emitted under, which an app can replace', () => {
      const request = McpInputRequest.elicitForm({
        message: 'm',
        requestedSchema: {
          type: 'object',
          properties: { favouriteColour: { type: 'string' }, password: { type: 'string' } },
        },
      });
      expect(() => emitted(request)).toThrow(/password/);
      const colours: InputRequestPolicy = {
        secrets: {
          secretConcept: ({ name }) =>
            name === 'favouriteColour' ? 'colour preference' : undefined,
        },
        development: false,
      };
      expect(() => emitted(request, colours)).toThrow(/colour preference/);
      const onlyPassword = McpInputRequest.elicitForm({
        message: 'm',
        requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
      });
      expect(() => emitted(onlyPassword, colours)).not.toThrow();
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

    it('refuses unsafe URLs when emitted and follows the development switch for localhost', () => {
      const withToken = McpInputRequest.elicitUrl({
        message: 'm',
        url: 'https://example.com/?token=abc',
      });
      expect(() => emitted(withToken)).toThrow(InvalidInputRequestError);
      const local = McpInputRequest.elicitUrl({ message: 'm', url: 'http://localhost:3000/cb' });
      expect(() => emitted(local)).toThrow(InvalidInputRequestError);
      expect(() => emitted(local, { ...production, development: true })).not.toThrow();
    });

    it('refuses what is not an absolute URL when built', () => {
      expect(() => McpInputRequest.elicitUrl({ message: 'm', url: 'not a url' })).toThrow(
        InvalidInputRequestError,
      );
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
          url: 'not a url',
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
