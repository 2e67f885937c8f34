import type { ProtocolError } from '@modelcontextprotocol/server';
import type { McpSealedInputRequired } from './innermost-outcome';

/** How one run of an operation ended. */
export type OperationOutcome =
  | { readonly kind: 'complete'; readonly value: unknown }
  | { readonly kind: 'input_required'; readonly wire: McpSealedInputRequired }
  /** A tool's failure answered as an `isError` result. */
  | { readonly kind: 'tool_error'; readonly message: string }
  | { readonly kind: 'error'; readonly error: ProtocolError };

/** A complete outcome as `complete` makes it; any other as the wire answers it (an error throws). */
export function answerOf<T>(outcome: OperationOutcome, complete: (value: unknown) => T): T {
  switch (outcome.kind) {
    case 'complete':
      return complete(outcome.value);
    case 'input_required':
      return { ...outcome.wire } as T;
    case 'tool_error':
      return { content: [{ type: 'text', text: outcome.message }], isError: true } as T;
    case 'error':
      throw outcome.error;
  }
}
