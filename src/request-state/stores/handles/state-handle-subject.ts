import { randomBytes } from 'node:crypto';
import type { StateHandleRepository } from './state-handle-repository.interface';

/** A repository under test and how to dispose of it. @publicApi */
export interface StateHandleRepositorySubject {
  readonly repository: StateHandleRepository;
  close(): Promise<void>;
}

/** A fresh handle, as the module makes them. @internal */
export const handle = (): string => randomBytes(32).toString('base64url');
