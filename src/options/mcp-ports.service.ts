import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { providedInstance } from './app-provided-instance';
import { forwardingPort, isForwardingPort } from './forwarding-port';
import type { Port } from './port';

/** How one declared port is filled, its dependencies bound. @internal */
export interface PortChoice<T> {
  readonly fromOptions: () => T | undefined;
  readonly fallback: () => T;
  readonly adopt: (instance: T) => void;
}

/**
 * Fills every port of the module once, at module init, when every provider of the application
 * exists — the one place that honours an application's own provider of a port's token in any of
 * its modules (Nest gives a module no view of the providers of the modules that import it, so the
 * port's provider forwards to what is chosen here). Two different instances for one port (an
 * option and a provider, or providers in two modules) fail startup.
 * @internal
 */
@Injectable()
export class McpPorts implements OnModuleInit, OnModuleDestroy {
  private readonly declared: {
    port: Port<object>;
    choice: PortChoice<object>;
    fill: (instance: object) => void;
  }[] = [];
  private readonly owned: object[] = [];

  constructor(private readonly modules: ModulesContainer) {}

  /** The provider value of `port`: a forwarding object, filled at module init. */
  declare<T extends object>(port: Port<T>, choice: PortChoice<T>): T {
    const { value, fill } = forwardingPort<T>(port.option);
    this.declared.push({
      port,
      choice: choice as unknown as PortChoice<object>,
      fill: fill as (instance: object) => void,
    });
    return value;
  }

  onModuleInit(): void {
    for (const { port, choice, fill } of this.declared) {
      let instance = providedInstance<object>(
        this.modules,
        port.token,
        port.option,
        choice.fromOptions(),
        isForwardingPort,
      );
      if (instance === undefined) {
        instance = choice.fallback();
        this.owned.push(instance);
      }
      choice.adopt(instance);
      fill(instance);
    }
  }

  /** Closes what the module created itself (the in-memory stores' sweeps). */
  onModuleDestroy(): void {
    for (const instance of this.owned) (instance as { close?: () => unknown }).close?.();
  }
}
