import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { resolveTracingOptions } from './tracing-options';

describe('resolveTracingOptions', () => {
  it("parents later rounds by the client's trace context unless told otherwise", () => {
    expect(resolveTracingOptions(undefined)).toEqual({ roundParent: 'client' });
    expect(resolveTracingOptions({})).toEqual({ roundParent: 'client' });
    expect(resolveTracingOptions({ roundParent: 'first-round' })).toEqual({
      roundParent: 'first-round',
    });
  });

  it.each([['flow'], [1], [null]])('names the option when roundParent is %p', (roundParent) => {
    expect(() => resolveTracingOptions({ roundParent })).toThrow(InvalidModuleOptionsError);
    expect(() => resolveTracingOptions({ roundParent })).toThrow(
      'Invalid McpModule option "tracing.roundParent": must be one of "client", "first-round"',
    );
  });

  it('refuses a tracing option that is not an object', () => {
    expect(() => resolveTracingOptions(5 as never)).toThrow('"tracing": must be an object');
  });
});
