import { KeyringManager } from '../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import { flowOf, MAX_FLOW_PREFIX_BYTES, withFlow } from './application-state-flow';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);
const FLOW = '0b6a1c2e-3d4f-4a5b-8c6d-7e8f9a0b1c2d';
const TOOL = { method: 'tools/call', target: 'approve_expense' };

const integrityOf = (keys: Record<string, Buffer>, active: string) =>
  new KeyringRecordIntegrity(new KeyringManager({ keyring: { active, keys } }));

describe('application-protected state and its flow', () => {
  const integrity = integrityOf({ k1: K1 }, 'k1');

  it('carries the flow id ahead of the application string, which comes back verbatim', () => {
    const application = 'handle:7f3a.ünïcödé/+=~ "quoted"';
    const wire = withFlow(integrity, application, FLOW, TOOL);
    expect(wire.endsWith(`.${application}`)).toBe(true);
    expect(Buffer.byteLength(wire) - Buffer.byteLength(application)).toBeLessThanOrEqual(
      MAX_FLOW_PREFIX_BYTES,
    );
    expect(flowOf(integrity, wire, TOOL)).toEqual({
      application,
      flowId: FLOW,
      unauthenticated: false,
    });
  });

  it('hands over a string without the prefix as it is, with no flow', () => {
    for (const raw of ['x', 'f1.not-a-flow', `f1.${FLOW}.short.tag.rest`])
      expect(flowOf(integrity, raw, TOOL)).toEqual({
        application: raw,
        flowId: undefined,
        unauthenticated: false,
      });
  });

  it('carries no flow id that does not verify: another operation, an edited id or string', () => {
    const wire = withFlow(integrity, 'state', FLOW, TOOL);
    const otherFlow = FLOW.replace('0b6a', '1b6a');
    for (const [raw, operation] of [
      [wire, { method: 'tools/call', target: 'other_tool' }],
      [wire, { method: 'prompts/get', target: 'approve_expense' }],
      [wire.replace(FLOW, otherFlow), TOOL],
      [`${wire}x`, TOOL],
    ] as const) {
      const opened = flowOf(integrity, raw, operation);
      expect(opened.flowId).toBeUndefined();
      expect(opened.unauthenticated).toBe(true);
      // The application's part is still the application's to judge.
      expect(opened.application.startsWith('state')).toBe(true);
    }
  });

  it('verifies under any key the keyring still holds, and not once the key is gone', () => {
    const wire = withFlow(integrity, 'state', FLOW, TOOL);
    expect(flowOf(integrityOf({ k1: K1, k2: K2 }, 'k2'), wire, TOOL).flowId).toBe(FLOW);
    expect(flowOf(integrityOf({ k2: K2 }, 'k2'), wire, TOOL)).toEqual({
      application: 'state',
      flowId: undefined,
      unauthenticated: true,
    });
  });

  it('sends the string as it is when the keyring has no key to tag with', () => {
    const keyless = new KeyringRecordIntegrity(new KeyringManager({ keyring: undefined }));
    expect(withFlow(keyless, 'state', FLOW, TOOL)).toBe('state');
  });
});
