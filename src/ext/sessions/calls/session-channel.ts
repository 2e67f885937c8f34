import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';
import type { SessionStream } from '../wire/session-stream';
import type { AwaitedAnswer, SessionAnswers } from './session-answers';

/** How a 2025-era session request asks its client something. @internal */
export interface SessionChannel {
  readonly sessionId: string;
  /** Aborts when the asking request is gone (client disconnect, cancel, session closed). */
  readonly signal: AbortSignal;
  /**
   * Sends a server-to-client request over the request's stream and waits for the answer, which the
   * client posts to any instance. `relatedTaskId` tags it as a task's (2025-11-25 tasks).
   */
  request(method: string, params: unknown, relatedTaskId?: string): Promise<AwaitedAnswer>;
  /** Sends a notification over the request's stream, when it is still open. */
  notify(method: string, params: unknown): void;
}

/** The channel of a request answered on `stream`. @internal */
export function streamChannel(
  answers: SessionAnswers,
  sessionId: string,
  stream: SessionStream,
  signal: AbortSignal,
): SessionChannel {
  return {
    sessionId,
    signal,
    request(method, params, relatedTaskId) {
      const id = answers.newRequestId();
      const taggedParams =
        relatedTaskId === undefined
          ? params
          : {
              ...(params as Record<string, unknown>),
              _meta: {
                ...((params as { _meta?: Record<string, unknown> } | undefined)?._meta ?? {}),
                [RELATED_TASK_META_KEY]: { taskId: relatedTaskId },
              },
            };
      return answers.wait(sessionId, id, signal, () => {
        stream.send({ jsonrpc: '2.0', id, method, params: taggedParams });
      });
    },
    notify(method, params) {
      stream.send({ jsonrpc: '2.0', method, params });
    },
  };
}
