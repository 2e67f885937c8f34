import type { InjectionToken, Provider } from '@nestjs/common';
import { McpPorts } from './mcp-ports.service';
import type { Port } from './port';

/**
 * How a port is filled when the module starts, from the providers named in `inject` (the resolved
 * options, the Redis connection, record integrity…), given to each function in that order.
 * @publicApi
 */
export interface PortFill<T> {
  /** The providers each function below receives, in this order (after the instance, for `adopt`). */
  readonly inject?: readonly InjectionToken[];
  /** The module option's value, if it sets the port. */
  readonly fromOptions: (...deps: never[]) => T | undefined;
  /** What fills it when neither an option nor the application does; the module then owns (and closes) it. */
  readonly fallback: (...deps: never[]) => T;
  /** Prepares whichever instance fills it (the keyring's record integrity for a Redis store). */
  readonly adopt?: (instance: T, ...deps: never[]) => void;
}

/**
 * The provider of a port: injected under the port's token like any provider
 * (`@Inject(ConsumedStateStore) store: ConsumedStateStore`), filled once at module init by
 * {@link McpPorts} with the option's value, the application's own provider of the token, or the
 * fallback. A fallback the module made is closed with it (its `close()`, if it has one).
 *
 * @example
 * ```ts
 * portProvider(NOTE_STORE_PORT, {
 *   inject: [NOTES_OPTIONS],
 *   fromOptions: (options: ResolvedNotesOptions) => options.store,
 *   fallback: () => new MemoryNoteStore(),
 * });
 * ```
 * @publicApi
 */
export function portProvider<T extends object>(port: Port<T>, fill: PortFill<T>): Provider {
  const call = <R>(fn: (...deps: never[]) => R, deps: unknown[], ...first: unknown[]): R =>
    (fn as (...args: unknown[]) => R)(...first, ...deps);
  return {
    provide: port.token,
    useFactory: (ports: McpPorts, ...deps: unknown[]) =>
      ports.declare(port, {
        fromOptions: () => call(fill.fromOptions, deps),
        fallback: () => call(fill.fallback, deps),
        adopt: (instance) => fill.adopt && call(fill.adopt, deps, instance),
      }),
    inject: [McpPorts, ...(fill.inject ?? [])],
  };
}
