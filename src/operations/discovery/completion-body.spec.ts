import { testOperationCall } from '../../pipeline/operation-call.spec-helper';
import type { OperationCall } from '../../pipeline/operation-call';
import { createTestOperationContext } from '../context/create-test-operation-context';
import { completionBody } from './completion-body';

const NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

function completionCall(argument: string, value = ''): OperationCall {
  return testOperationCall({
    purpose: 'completion',
    context: createTestOperationContext({ method: 'completion/complete' }),
    completion: { argument, value },
  });
}

describe('completionBody', () => {
  const body = completionBody('Prompts.greet()', {
    who: (value) => ['Ada', 'Alan', 'Grace'].filter((name) => name.startsWith(value)),
  });

  it('runs the completer of the argument and records its suggestions', async () => {
    const call = completionCall('who', 'A');
    await expect(body(call)).resolves.toEqual(['Ada', 'Alan']);
    expect(call.recorded).toEqual({ kind: 'completion', values: ['Ada', 'Alan'] });
  });

  it.each(NAMES)('suggests nothing for an argument named "%s"', async (name) => {
    const call = completionCall(name);
    await expect(body(call)).resolves.toEqual([]);
    expect(call.recorded).toBeUndefined();
  });

  it.each(NAMES)('runs a completer registered under "%s"', async (name) => {
    const own = completionBody(
      'Prompts.odd()',
      Object.fromEntries([[name, () => ['yes']]]) as Parameters<typeof completionBody>[1],
    );
    await expect(own(completionCall(name))).resolves.toEqual(['yes']);
  });
});
