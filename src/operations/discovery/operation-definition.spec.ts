import { McpInputDeclaration } from '../../input/mcp-input-declaration';
import { McpInputRequirement } from '../../input/mcp-input-requirement.enum';
import { McpRequestStateMode } from '../../input/mcp-request-state-mode.enum';
import { operationDefinitionDigest, type OperationContract } from './operation-definition';

const BASE: OperationContract = {
  kind: 'tool',
  key: 'confirm_order',
  input: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
  output: undefined,
  profile: {
    kind: 'tool',
    declarations: [McpInputDeclaration.elicitationForm()],
    stateMode: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: false,
    replay: false,
    scopes: ['orders:write'],
    public: false,
    argumentsValidator: undefined,
  },
  task: { support: 'forbidden', creation: 'immediate', ttlMs: 60_000 },
};

const digest = (change: Partial<OperationContract> = {}) =>
  operationDefinitionDigest({ ...BASE, ...change });
const withProfile = (change: Partial<OperationContract['profile']>) =>
  digest({ profile: { ...BASE.profile, ...change } });

describe('operationDefinitionDigest', () => {
  it('is the same for the same contract, whatever the key order of its schema', () => {
    expect(digest()).toBe(
      digest({
        input: { required: ['item'], properties: { item: { type: 'string' } }, type: 'object' },
      }),
    );
    expect(digest()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each<[string, () => string]>([
    ['the name', () => digest({ key: 'confirm_order_v2' })],
    ['the kind', () => digest({ kind: 'prompt' })],
    ['the input schema', () => digest({ input: { type: 'object', properties: {} } })],
    ['the output schema', () => digest({ output: { type: 'object' } })],
    [
      'a declaration',
      () =>
        withProfile({
          declarations: [McpInputDeclaration.elicitationForm(McpInputRequirement.REQUIRED)],
        }),
    ],
    ['the state mode', () => withProfile({ stateMode: McpRequestStateMode.APPLICATION_PROTECTED })],
    ['single use', () => withProfile({ singleUse: true })],
    ['replay', () => withProfile({ replay: true })],
    [
      'task support',
      () => digest({ task: { support: 'optional', creation: 'immediate', ttlMs: 60_000 } }),
    ],
  ])('changes with %s', (_, changed) => {
    expect(changed()).not.toBe(digest());
  });

  it('does not change with what a flow does not rely on: scopes, a task lifetime', () => {
    expect(withProfile({ scopes: [] })).toBe(digest());
    expect(digest({ task: { support: 'forbidden', creation: 'immediate', ttlMs: 5 } })).toBe(
      digest(),
    );
  });
});
