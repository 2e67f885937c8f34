import { LosslessNumber } from 'lossless-json';
import {
  decodeStateHandleData,
  encodeStateHandleData,
  isWellFormedStateHandle,
  newStateHandle,
  stateHandleBinding,
} from './state-handle';

describe('state handles', () => {
  it('are 256 random bits in base64url, never repeated', () => {
    const handles = new Set(Array.from({ length: 1_000 }, newStateHandle));
    expect(handles.size).toBe(1_000);
    for (const handle of handles) {
      expect(isWellFormedStateHandle(handle)).toBe(true);
      expect(Buffer.from(handle, 'base64url')).toHaveLength(32);
    }
  });

  it('accept only the exact shape this module issues', () => {
    const handle = newStateHandle();
    for (const bad of [
      '',
      handle.slice(1),
      `${handle}A`,
      `${handle.slice(1)}=`,
      `${handle.slice(1)}+`,
      ` ${handle.slice(1)}`,
    ])
      expect(isWellFormedStateHandle(bad)).toBe(false);
  });

  it('bind partition, method and target unambiguously', () => {
    const base = stateHandleBinding('user:alice', 'tools/call', 'approve');
    expect(stateHandleBinding('user:alice', 'tools/call', 'approve')).toBe(base);
    for (const other of [
      stateHandleBinding('user:eve', 'tools/call', 'approve'),
      stateHandleBinding('user:alice', 'prompts/get', 'approve'),
      stateHandleBinding('user:alice', 'tools/call', 'delete'),
      stateHandleBinding('user:alice","tools/call', '', 'approve'),
    ])
      expect(other).not.toBe(base);
    expect(base).not.toContain('alice');
  });

  it('keep data as JSON with exact numbers', () => {
    const text = encodeStateHandleData({
      amount: new LosslessNumber('12345678901234567890.50'),
      n: 3,
    }) as string;
    expect(text).toBe('{"amount":12345678901234567890.50,"n":3}');
    const back = decodeStateHandleData(text) as { amount: LosslessNumber; n: number };
    expect(back.amount).toBeInstanceOf(LosslessNumber);
    expect(back.amount.value).toBe('12345678901234567890.50');
    expect(back.n).toBe(3);
    expect(encodeStateHandleData(() => 1)).toBeUndefined();
  });
});
