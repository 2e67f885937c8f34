/**
 * The keys in use by a seal in flight: a key held here cannot be removed until every holder
 * released it.
 * @internal
 */
export class KeyReservations {
  private readonly holders = new Map<string, number>();

  /** Holds `keyId`; answers the release, which counts once however often it is called. */
  hold(keyId: string): () => void {
    this.holders.set(keyId, (this.holders.get(keyId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const remaining = (this.holders.get(keyId) ?? 1) - 1;
      if (remaining > 0) this.holders.set(keyId, remaining);
      else this.holders.delete(keyId);
    };
  }

  held(keyId: string): boolean {
    return (this.holders.get(keyId) ?? 0) > 0;
  }
}
