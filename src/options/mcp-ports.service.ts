import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { providedInstance } from './app-provided-instance';
import type { Port } from './port';

/**
 * How one port is filled: the module option's value, else what the application provides under the
 * port's token, else `fallback()` (Redis when the `redis` option is set, else memory — the module's
 * providers decide), which the module then owns and closes.
 * @internal
 */
export interface PortChoice<T> {
  readonly port: Port<T>;
  readonly fromOptions: T | undefined;
  readonly fallback: () => T;
  /** Prepares whichever instance fills the port (the module's keyring for a Redis store). */
  readonly adopt?: (instance: T) => void;
}

/** Injection token of the module's {@link PortChoice} list. @internal */
export const MCP_PORT_CHOICES = Symbol('McpPortChoices');

/**
 * Fills every port of the module once, at module init, when every provider of the application
 * exists: the one resolver for stores, protectors and resolvers an app may bring. Two different
 * instances for one port (an option and a provider, or providers in two modules) fail startup.
 * @internal
 */
@Injectable()
export class McpPorts implements OnModuleInit, OnModuleDestroy {
  private readonly filled = new Map<symbol, unknown>();
  private readonly owned: unknown[] = [];

  constructor(
    private readonly modules: ModulesContainer,
    @Inject(MCP_PORT_CHOICES) private readonly choices: readonly PortChoice<unknown>[],
  ) {}

  onModuleInit(): void {
    for (const { port, fromOptions, fallback, adopt } of this.choices) {
      let instance = providedInstance(this.modules, port.token, port.option, fromOptions);
      if (instance === undefined) {
        instance = fallback();
        this.owned.push(instance);
      }
      adopt?.(instance);
      this.filled.set(port.token, instance);
    }
  }

  /** Closes what the module created itself (the in-memory stores' sweeps). */
  onModuleDestroy(): void {
    for (const instance of this.owned)
      (instance as { close?: () => unknown } | undefined)?.close?.();
  }

  /** The instance that fills `port`; asking before module init is a bug. */
  get<T>(port: Port<T>): T {
    if (!this.filled.has(port.token)) throw new Error('McpModule has not finished initializing');
    return this.filled.get(port.token) as T;
  }
}
