/** A request id of JSON-RPC. @internal */
export type JsonRpcId = string | number;

/**
 * What instances tell each other about 2025-era sessions: an answer to a server-to-client request
 * (its JSON text, numbers as the client wrote them), a cancelled call, a deleted session, the
 * changes clients listen for, and an application's announcement that the definition of an
 * operation registered at run time changed. Also what one instance tells itself.
 * @internal
 */
export type SessionEvent =
  | {
      readonly kind: 'answer';
      readonly sessionId: string;
      /** The id the server gave its request. */
      readonly id: JsonRpcId;
      /** The client's JSON-RPC response, as JSON text with exact numbers. */
      readonly response: string;
    }
  | { readonly kind: 'cancel'; readonly sessionId: string; readonly requestId: JsonRpcId }
  | { readonly kind: 'closed'; readonly sessionId: string }
  | { readonly kind: 'listChanged'; readonly list: 'tools' | 'prompts' | 'resources' }
  | { readonly kind: 'resourceUpdated'; readonly uri: string }
  | {
      readonly kind: 'definitionsChanged';
      /** The kind of operation whose definition changed. */
      readonly operation: 'tool' | 'prompt' | 'resource';
      /** Its name, or a resource's URI or URI template. */
      readonly name: string;
    };

/** Whether an event was published by this instance or came from another. @internal */
export type SessionEventOrigin = 'local' | 'remote';
