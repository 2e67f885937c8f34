import { readFileSync } from 'node:fs';
import {
  assertNestInternals,
  InterceptorsConsumer,
  type ExternalContextCreator,
} from './nest-internals';

describe('assertNestInternals', () => {
  const { version } = JSON.parse(
    readFileSync(require.resolve('@nestjs/core/package.json'), 'utf8'),
  ) as { version: string };

  it('accepts the ExternalContextCreator of the installed Nest', () => {
    const creator = {
      create: () => undefined,
      filtersContextCreator: { create: () => undefined },
      interceptorsConsumer: new InterceptorsConsumer(),
    } as unknown as ExternalContextCreator;
    expect(() => assertNestInternals(creator)).not.toThrow();
  });

  it('fails when the creator has no InterceptorsConsumer of Nest’s', () => {
    const without = {
      create: () => undefined,
      filtersContextCreator: { create: () => undefined },
      interceptorsConsumer: { intercept: () => undefined },
    } as unknown as ExternalContextCreator;
    expect(() => assertNestInternals(without)).toThrow(
      /ExternalContextCreator\.interceptorsConsumer has moved/,
    );
  });

  it('fails naming the Nest version when an internal the module needs has moved', () => {
    const moved = { create: () => undefined } as unknown as ExternalContextCreator;
    expect(() => assertNestInternals(moved)).toThrow(
      `nestjs-mcp cannot use @nestjs/core ${version}: ExternalContextCreator.filtersContextCreator has moved or changed`,
    );
    expect(() => assertNestInternals({} as ExternalContextCreator)).toThrow(
      /ExternalContextCreator\.create .*has moved/,
    );
  });
});
