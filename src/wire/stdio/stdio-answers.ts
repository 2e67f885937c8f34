/** What a waiting server-to-client request of a stdio connection ended with. @internal */
export type StdioAnswer =
  | { readonly kind: 'answer'; readonly response: string }
  | { readonly kind: 'unanswered'; readonly reason: 'timeout' | 'aborted' };

/**
 * The server-to-client requests of one stdio connection waiting for their answers, by id: each
 * wait bounded by its timeout and its call's signal, and all of them given up when no answer can
 * come any more (the input ended).
 * @internal
 */
export class StdioAnswers {
  private readonly waiting = new Map<string, (answer: StdioAnswer) => void>();
  private sequence = 0;

  /** A fresh id for a server-to-client request: never one a client's own requests would clash with. */
  newId(): string {
    return `nestjs-mcp-${++this.sequence}`;
  }

  /** Waits for the answer to `id`; `send` runs once the wait is in place (so no answer comes first). */
  wait(
    id: string,
    timeoutMs: number,
    signal: AbortSignal,
    send: () => Promise<void>,
  ): Promise<StdioAnswer> {
    if (signal.aborted) return Promise.resolve({ kind: 'unanswered', reason: 'aborted' });
    return new Promise<StdioAnswer>((resolve) => {
      const settle = (answer: StdioAnswer) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
        resolve(answer);
      };
      const onAbort = () => settle({ kind: 'unanswered', reason: 'aborted' });
      const timer = setTimeout(() => settle({ kind: 'unanswered', reason: 'timeout' }), timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, settle);
      void send().catch(onAbort);
    });
  }

  /** Settles the wait for `id` with the client's answer as written; `false` when none waits. */
  answer(id: unknown, response: string): boolean {
    const settle = typeof id === 'string' ? this.waiting.get(id) : undefined;
    settle?.({ kind: 'answer', response });
    return settle !== undefined;
  }

  /** Gives up every wait: no answer can come any more. */
  abortAll(): void {
    for (const settle of [...this.waiting.values()])
      settle({ kind: 'unanswered', reason: 'aborted' });
  }
}
