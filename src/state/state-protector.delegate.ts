import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { KeyringManager } from '../keyring/keyring-manager.service';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { AesGcmRequestStateProtector } from './aes-gcm-request-state.protector';
import { providedInstance } from '../ports/app-provided-instance';
import { RequestStateProtector } from './request-state-protector.interface';

/**
 * The protector the module seals with, chosen once at startup: the `protector` option, or a
 * `RequestStateProtector` the application provides in any module, or AES-256-GCM over the
 * keyring (and only then an ephemeral key, when no keyring is configured).
 * @internal
 */
@Injectable()
export class StateProtectorDelegate implements RequestStateProtector, OnModuleInit {
  private protector: RequestStateProtector | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly keyring: KeyringManager,
    private readonly modules: ModulesContainer,
  ) {}

  onModuleInit(): void {
    this.protector = providedInstance<RequestStateProtector>(
      this.modules,
      RequestStateProtector,
      'protector',
      this.options.protector,
    );
    if (!this.protector) {
      this.keyring.ensureActiveKey();
      this.protector = new AesGcmRequestStateProtector(this.keyring);
    }
  }

  /** Whether state is sealed by the module's own AES-256-GCM protector. */
  get usesDefaultProtector(): boolean {
    return this.protector instanceof AesGcmRequestStateProtector;
  }

  seal(plaintext: Uint8Array, associatedData: Uint8Array): string | Promise<string> {
    return this.active().seal(plaintext, associatedData);
  }

  open(token: string, associatedData: Uint8Array): Uint8Array | Promise<Uint8Array> {
    return this.active().open(token, associatedData);
  }

  private active(): RequestStateProtector {
    if (!this.protector) throw new Error('McpModule has not finished initializing');
    return this.protector;
  }
}
