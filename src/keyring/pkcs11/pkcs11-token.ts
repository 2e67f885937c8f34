import {
  loadPkcs11js,
  pkcs11Constants,
  type Pkcs11Api,
  type Pkcs11Constants,
  type Pkcs11Handle,
  type Pkcs11Module,
} from './pkcs11-binding';

/** How to reach one token. @internal */
export interface Pkcs11TokenOptions {
  readonly module: string;
  readonly tokenLabel: string;
  readonly pin: string;
  /** Sessions open at most (operations in flight at once). */
  readonly sessions: number;
}

/** After a failure to reach the token, calls fail at once for this long instead of trying again. */
const FAILED_BACKOFF_MS = 1_000;
/** Calls waiting for a session at most; past it the token counts as unavailable. */
const MAX_WAITING = 10_000;

/** A PKCS#11 return value, when `error` is one (`pkcs11js` puts it on `code`). @internal */
export function pkcs11Code(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * One token of a PKCS#11 module: the library initialized once (OS locking, since operations run
 * on libuv's threads), the token found by label, a pool of sessions logged in as the user. A
 * session whose operation fails for any reason but the data itself is closed and never reused,
 * every idle one with it (a dropped session usually means all are), and `generation` moves on so
 * that key handles are looked up again; the next call opens fresh sessions and logs in again.
 * While the token cannot be reached, calls fail at once for a second, then try again.
 * @internal
 */
export class Pkcs11Token {
  readonly ck: Pkcs11Constants;
  private readonly api: Pkcs11Api;
  private slot: Pkcs11Handle | undefined;
  private idle: Pkcs11Handle[] = [];
  private open = 0;
  private readonly waiting: ((session: Pkcs11Handle | Error) => void)[] = [];
  private failedAt = 0;
  private closed = false;
  /** Moves on whenever sessions are dropped: key handles of an earlier generation are looked up again. */
  generation = 0;

  constructor(
    private readonly options: Pkcs11TokenOptions,
    module: Pkcs11Module = loadPkcs11js(),
  ) {
    this.ck = pkcs11Constants(module);
    this.api = new module.PKCS11();
    this.api.load(options.module);
    this.initialize();
  }

  /**
   * Runs `work` on a logged-in session. A failure `isDataError` blames on the data (a tag that
   * does not verify) keeps the session; any other drops the sessions and is retried once on a
   * fresh one, so a token that dropped its sessions costs no call; a second failure is thrown.
   */
  async use<T>(
    work: (api: Pkcs11Api, session: Pkcs11Handle) => Promise<T>,
    isDataError: (error: unknown, session: Pkcs11Handle) => boolean = () => false,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.acquire();
      try {
        const result = await work(this.api, session);
        this.release(session);
        return result;
      } catch (error) {
        if (isDataError(error, session)) {
          this.release(session);
          throw error;
        }
        this.drop(session);
        if (attempt > 0 || this.closed) throw error;
      }
    }
  }

  /**
   * Whether a failure of `session` was about the data: a PKCS#11 error other than a stale key
   * handle, on a session that is still open and logged in (modules answer a GCM tag that does not
   * verify differently: CKR_ENCRYPTED_DATA_INVALID, or SoftHSM2's CKR_GENERAL_ERROR).
   */
  failedOnData(error: unknown, session: Pkcs11Handle): boolean {
    const { ck } = this;
    const code = pkcs11Code(error);
    if (
      code === undefined ||
      code === ck.CKR_KEY_HANDLE_INVALID ||
      code === ck.CKR_OBJECT_HANDLE_INVALID
    )
      return false;
    if (code === ck.CKR_ENCRYPTED_DATA_INVALID || code === ck.CKR_ENCRYPTED_DATA_LEN_RANGE)
      return true;
    try {
      const { state } = this.api.C_GetSessionInfo(session);
      return state === ck.CKS_RO_USER_FUNCTIONS || state === ck.CKS_RW_USER_FUNCTIONS;
    } catch {
      return false;
    }
  }

  /** Closes every session and finalizes the library. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter(new Error('the token is closed'));
    const sessions = this.idle.splice(0);
    for (const session of sessions) this.quietly(() => this.api.C_CloseSession(session));
    this.quietly(() => this.api.C_Finalize());
  }

  private async acquire(): Promise<Pkcs11Handle> {
    if (this.closed) throw new Error('the token is closed');
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.open < this.options.sessions) return this.openSession();
    if (this.waiting.length >= MAX_WAITING)
      throw new Error('too many operations wait for the token');
    const next = await new Promise<Pkcs11Handle | Error>((done) => this.waiting.push(done));
    if (next instanceof Error) throw next;
    return next;
  }

  private release(session: Pkcs11Handle): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(session);
    else this.idle.push(session);
  }

  /** Forgets a failed session and every idle one, so the next call starts afresh. */
  private drop(session: Pkcs11Handle): void {
    this.generation++;
    for (const each of [session, ...this.idle.splice(0)]) {
      this.open--;
      this.quietly(() => this.api.C_CloseSession(each));
    }
    // Those waiting open sessions of their own now that there is room.
    for (const waiter of this.waiting.splice(0)) this.openSession().then(waiter, waiter);
  }

  private openSession(): Promise<Pkcs11Handle> {
    if (Date.now() - this.failedAt < FAILED_BACKOFF_MS)
      return Promise.reject(new Error('the token could not be reached a moment ago'));
    this.open++;
    try {
      const session = this.openLoggedIn();
      this.failedAt = 0;
      return Promise.resolve(session);
    } catch (error) {
      this.open--;
      this.failedAt = Date.now();
      // The slot may have changed (a token re-inserted), or the library lost its state.
      this.slot = undefined;
      return Promise.reject(error instanceof Error ? error : new Error('the token failed'));
    }
  }

  private openLoggedIn(): Pkcs11Handle {
    const { ck } = this;
    let session: Pkcs11Handle;
    try {
      session = this.api.C_OpenSession(this.findSlot(), ck.CKF_SERIAL_SESSION);
    } catch (error) {
      // The library may have been finalized under us: initialize again once.
      this.initialize();
      session = this.api.C_OpenSession(this.findSlot(), ck.CKF_SERIAL_SESSION);
      void error;
    }
    try {
      this.api.C_Login(session, ck.CKU_USER, this.options.pin);
    } catch (error) {
      if (pkcs11Code(error) !== ck.CKR_USER_ALREADY_LOGGED_IN) {
        this.quietly(() => this.api.C_CloseSession(session));
        throw error;
      }
    }
    return session;
  }

  private findSlot(): Pkcs11Handle {
    if (this.slot) return this.slot;
    for (const slot of this.api.C_GetSlotList(true)) {
      if (this.api.C_GetTokenInfo(slot).label.trim() === this.options.tokenLabel) {
        this.slot = slot;
        return slot;
      }
    }
    throw new Error(`no token labelled "${this.options.tokenLabel}" in ${this.options.module}`);
  }

  private initialize(): void {
    try {
      this.api.C_Initialize({ flags: this.ck.CKF_OS_LOCKING_OK });
    } catch (error) {
      // Another user of the module in this process initialized it already: that is fine.
      if (pkcs11Code(error) !== this.ck.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
    }
  }

  private quietly(action: () => void): void {
    try {
      action();
    } catch {
      // Closing what is already gone.
    }
  }
}
