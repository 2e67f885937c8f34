import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes of the window number, then of the MAC, in a nonce. */
const WINDOW_BYTES = 8;
const MAC_BYTES = 16;
const NONCE_LENGTH = Math.ceil(((WINDOW_BYTES + MAC_BYTES) * 4) / 3);

/**
 * Server nonces for DPoP proofs (RFC 9449 §9) that every instance of a fleet issues and accepts
 * with nothing shared but the key: a nonce is the number of the current time window and its
 * HMAC-SHA256 under the nonce key, so any instance with the key can tell a nonce it never issued
 * from a forged one. The current window, the one before (a nonce issued just before a rotation)
 * and the one after (an instance whose clock is a little ahead) are accepted.
 * @internal
 */
export class DpopNonces {
  private readonly rotationMs: number;
  private cached: { window: number; nonce: string } | undefined;

  constructor(
    private readonly key: Buffer,
    rotationSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.rotationMs = rotationSeconds * 1000;
  }

  /** The nonce of the current window: what `DPoP-Nonce` hands out. */
  current(): string {
    const window = Math.floor(this.now() / this.rotationMs);
    if (this.cached?.window !== window) this.cached = { window, nonce: this.nonceOf(window) };
    return this.cached.nonce;
  }

  /** Whether `nonce` is one of ours, from the current window or a neighbour. */
  accepts(nonce: unknown): boolean {
    if (typeof nonce !== 'string' || nonce.length !== NONCE_LENGTH) return false;
    const bytes = Buffer.from(nonce, 'base64url');
    if (bytes.length !== WINDOW_BYTES + MAC_BYTES) return false;
    const window = Number(bytes.readBigUInt64BE(0));
    const now = Math.floor(this.now() / this.rotationMs);
    if (Math.abs(window - now) > 1) return false;
    return timingSafeEqual(bytes.subarray(WINDOW_BYTES), this.macOf(window));
  }

  private nonceOf(window: number): string {
    return Buffer.concat([windowBytes(window), this.macOf(window)]).toString('base64url');
  }

  private macOf(window: number): Buffer {
    return createHmac('sha256', this.key)
      .update(windowBytes(window))
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

function windowBytes(window: number): Buffer {
  const bytes = Buffer.alloc(WINDOW_BYTES);
  bytes.writeBigUInt64BE(BigInt(window));
  return bytes;
}
