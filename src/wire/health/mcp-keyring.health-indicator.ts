import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { KeyringManager } from '../../keyring/keyring-manager.service';

/**
 * A `@nestjs/terminus` health indicator of the keyring request state is sealed with: up with the
 * active key id, every key id and the fingerprint (never key material); down when there is no
 * active key, when the active key is ephemeral (unless allowed), or when the fingerprint is not the
 * one the fleet expects. For a readiness probe: an instance that cannot open its peers' states
 * should not take traffic.
 *
 * @example
 * ```ts
 * @Get('ready')
 * @HealthCheck()
 * ready() {
 *   return this.health.check([() => this.keyring.isHealthy('keyring')]);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpKeyringHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly keyring: KeyringManager,
  ) {}

  /**
   * @param options.allowEphemeralKey whether an ephemeral active key (one instance, gone on
   * restart) counts as healthy. Default `false`.
   * @param options.expectedFingerprint the fingerprint every instance of the fleet must show; down
   * when this one differs.
   */
  isHealthy(
    key = 'mcp_keyring',
    options: { readonly allowEphemeralKey?: boolean; readonly expectedFingerprint?: string } = {},
  ): HealthIndicatorResult {
    const indicator = this.indicators.check(key);
    const snapshot = this.keyring.snapshot();
    const details = {
      activeKeyId: snapshot.activeKeyId ?? null,
      keyIds: snapshot.keys.map((entry) => entry.id),
      ephemeral: snapshot.ephemeral,
      fingerprint: snapshot.fingerprint.value,
    };
    if (snapshot.activeKeyId === undefined)
      return indicator.down({ ...details, message: 'no active key' });
    if (snapshot.ephemeral && options.allowEphemeralKey !== true)
      return indicator.down({
        ...details,
        message: 'the active key is ephemeral: states do not survive a restart or open elsewhere',
      });
    if (
      options.expectedFingerprint !== undefined &&
      options.expectedFingerprint !== snapshot.fingerprint.value
    )
      return indicator.down({ ...details, message: 'the keyring differs from the fleet' });
    return indicator.up(details);
  }
}
