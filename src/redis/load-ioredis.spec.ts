import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { loadIoredis } from './load-ioredis';

function missing(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
}

describe('loadIoredis', () => {
  it('loads the installed package', () => {
    expect(typeof loadIoredis().Redis).toBe('function');
  });

  it('fails startup naming the package when it is not installed', () => {
    const load = () => {
      throw missing('ioredis');
    };
    expect(() => loadIoredis(load)).toThrow(InvalidModuleOptionsError);
    expect(() => loadIoredis(load)).toThrow(
      'Invalid McpModule option "redis": needs the optional peer dependency "ioredis" (npm install ioredis)',
    );
  });

  it('rethrows any other failure as it is', () => {
    const broken = missing('cluster-key-slot');
    expect(() =>
      loadIoredis(() => {
        throw broken;
      }),
    ).toThrow(broken);
  });
});
