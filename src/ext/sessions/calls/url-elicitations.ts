import { randomUUID } from 'node:crypto';

/** The requests of an input-required round, by key, as the wire carries them. */
type InputRequests = Readonly<Record<string, unknown>>;

function urlOf(request: unknown): string | undefined {
  const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
  const { mode, url } = (params ?? {}) as { mode?: unknown; url?: unknown };
  return method === 'elicitation/create' && mode === 'url' && typeof url === 'string'
    ? url
    : undefined;
}

/**
 * The URL elicitations one 2025-era call asked. 2026-07-28 dropped `elicitationId`, which the
 * 2025-11-25 schema requires of a URL elicitation (clients refuse one without it): each URL asked
 * gets an id, and once a later round no longer asks for that URL — the out-of-band interaction is
 * over, the call moved on — the client is told with `notifications/elicitation/complete`.
 * @internal
 */
export class UrlElicitations {
  /** The id of each URL asked and not completed yet. */
  private readonly pending = new Map<string, string>();

  /** The round's requests as a 2025-era client takes them: each URL ask with its `elicitationId`. */
  idsFor(requests: InputRequests): InputRequests {
    let tagged: Record<string, unknown> | undefined;
    for (const [key, request] of Object.entries(requests)) {
      const url = urlOf(request);
      if (url === undefined) continue;
      const elicitationId = randomUUID();
      this.pending.set(url, elicitationId);
      const { params } = request as { params: Record<string, unknown> };
      tagged ??= { ...requests };
      Object.defineProperty(tagged, key, {
        value: { ...(request as object), params: { ...params, elicitationId } },
        enumerable: true,
      });
    }
    return tagged ?? requests;
  }

  /**
   * The ids of the URL elicitations the next round no longer asks for (`next`: its requests, or
   * none when the call ended): each gets its completion notification.
   */
  completedBy(next: InputRequests | undefined): string[] {
    const askedAgain = new Set(Object.values(next ?? {}).map(urlOf));
    const completed: string[] = [];
    for (const [url, id] of this.pending)
      if (!askedAgain.has(url)) {
        completed.push(id);
        this.pending.delete(url);
      }
    return completed;
  }
}
