import { randomUuid } from '../../kit/random-uuid';

/**
 * The flow a sealed state continues, sealed with it so no server keeps it: the id minted on the
 * flow's first round and, when that round was traced, its span context in `traceparent` spelling.
 * @internal
 */
export interface SealedFlow {
  readonly id: string;
  readonly trace?: string;
}

/** A random UUID (v4): unique across a fleet, meaning nothing; cheap (drawn in batches). @internal */
export function newFlowId(): string {
  return randomUuid();
}
