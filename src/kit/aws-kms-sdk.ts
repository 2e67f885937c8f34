import { requireOptionalPeer } from './optional-peer';

/** A command class of `@aws-sdk/client-kms`. @internal */
export type KmsCommandClass = new (input: Record<string, unknown>) => unknown;

/**
 * The part of `@aws-sdk/client-kms` whatever talks to KMS needs: the real `KMSClient`. Each user
 * adds the commands it sends.
 * @internal
 */
export interface KmsClientSdk {
  KMSClient: new (config: Record<string, unknown>) => {
    send(command: unknown): Promise<Record<string, unknown>>;
    destroy(): void;
  };
}

/** Loads `@aws-sdk/client-kms`, an optional peer dependency, for `neededBy`. @internal */
export function loadKmsSdk<T extends KmsClientSdk>(neededBy: string): T {
  return requireOptionalPeer<T>('@aws-sdk/client-kms', neededBy);
}
