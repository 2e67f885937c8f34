import type { Provider } from '@nestjs/common';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { KeyringManager } from './keyring-manager.service';
import { KEYRING_OPTIONS, type KeyringOptions } from './keyring.options';
import { KeyWrapper } from './wrapping/key-wrapper.interface';
import { McpCoreEvents } from '../options/mcp-core-events';

/**
 * The keyring, loaded before anything that seals, opens or tags is created: wrapped entries are
 * unwrapped here (a KMS's Decrypt, an HSM's unwrap or key lookup), so startup fails with the key
 * that could not be. The wrapper is `keyring.wrapper` or a `KeyWrapper` provider the module sees.
 * @internal
 */
export const KeyringManagerProvider: Provider = {
  provide: KeyringManager,
  useFactory: async (
    options: KeyringOptions,
    provided: KeyWrapper | undefined,
    events: McpCoreEvents,
  ) => {
    if (options.wrapper && provided && options.wrapper !== provided)
      throw new InvalidModuleOptionsError(
        'keyring.wrapper',
        'is set and a different KeyWrapper is provided; keep one',
      );
    const keyring = new KeyringManager(options);
    keyring.events = events;
    await keyring.load(options.wrapper ?? provided);
    return keyring;
  },
  inject: [KEYRING_OPTIONS, { token: KeyWrapper, optional: true }, McpCoreEvents],
};
