import { randomBytes } from 'node:crypto';
import { KeyringManager } from '../keyring-manager.service';
import { KeyringError } from '../keyring.error';
import { KeyringRecordIntegrity } from '../record-integrity';
import { activateChange, removeChange, stageChange } from './fleet-changes';
import { newestOf } from './fleet-desired-record';
import {
  decodeDesired,
  decodeReport,
  encodeDesired,
  encodeReport,
  type DesiredKeyring,
} from './fleet-records';
import { failureOf, instanceView } from './fleet-view';

const BUILT_IN_IDS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const integrity = new KeyringRecordIntegrity(
  new KeyringManager({
    keyring: { active: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
  }),
);
const empty: DesiredKeyring = { seq: 1, active: 'k1', keys: new Map(), removed: [] };

describe('fleet records', () => {
  it('carries key ids named like object built-ins as plain data, through encode and decode', () => {
    let desired = empty;
    for (const id of BUILT_IN_IDS) desired = stageChange(id, { kms: `blob-${id}` })(desired);
    const decoded = decodeDesired(encodeDesired(desired, integrity), integrity);
    expect([...(decoded?.keys.keys() ?? [])]).toEqual(BUILT_IN_IDS);
    expect(decoded?.keys.get('__proto__')).toEqual({ kms: 'blob-__proto__' });
    expect(Object.getPrototypeOf(decoded?.keys.get('constructor'))).toBe(Object.prototype);
  });

  it('reads failures keyed by built-in names as own entries only', () => {
    const report = {
      name: 'a',
      active: 'k1',
      keys: ['k1'],
      fingerprint: 'f'.repeat(64),
      failures: JSON.parse('{"__proto__":"unwrap failed"}') as Record<string, string>,
      seq: 3,
    };
    const decoded = decodeReport('a', encodeReport(report, integrity), integrity);
    const view = instanceView('a', decoded, false);
    expect(failureOf(view, '__proto__')).toBe('unwrap failed');
    for (const id of BUILT_IN_IDS.slice(1)) expect(failureOf(view, id)).toBeUndefined();
    expect(failureOf(instanceView('b', undefined, false), 'constructor')).toBeUndefined();
  });

  it('refuses an activate after a remove of the same key, and a remove of the active key or of a key no keyring holds', () => {
    const staged = stageChange('k2', { kms: 'blob' })(empty);
    const removed = removeChange('k2', true)(staged);
    expect(() => activateChange('k2')(removed)).toThrow(
      new KeyringError(
        'Key "k2" was removed from the fleet\'s keyring while it was being activated; stage it again to activate it',
      ),
    );
    // Staged again, it may be activated again.
    expect(activateChange('k2')(stageChange('k2', { kms: 'blob' })(removed)).active).toBe('k2');
    expect(() => removeChange('k1', true)(staged)).toThrow(/is the fleet's active key/);
    expect(() => removeChange('k9', false)(staged)).toThrow(
      new KeyringError('Key "k9" is not in the keyring'),
    );
    // A key a live instance holds from its own configuration (not in the record) may be removed.
    expect(removeChange('k9', true)(staged).removed).toEqual(['k9']);
  });

  it('orders records by seq: the newest of those read wins', () => {
    const older = { ...empty, seq: 4 };
    const newer = { ...empty, seq: 5 };
    expect(newestOf(older, undefined, newer)).toBe(newer);
    expect(newestOf(newer, older)).toBe(newer);
    expect(newestOf(undefined, undefined)).toBeUndefined();
  });
});
