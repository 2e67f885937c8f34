/**
 * One of the module's ports: an interface an application may implement and hand in, either as a
 * module option or by providing the interface's same-name DI token in any of its modules.
 * @publicApi
 */
export interface Port<T> {
  /** The DI token the application provides (`{ provide: ConsumedStateStore, useClass: … }`). */
  readonly token: symbol;
  /** The module option that sets it, for messages (`requestState.consumedStateStore`). */
  readonly option: string;
  /** Carries the port's type only. */
  readonly type?: T;
}

/**
 * Declares a port: the DI token of its interface (a same-name `Symbol`) and the module option
 * that sets it, for messages. Fill it with {@link portProvider}.
 *
 * @example
 * ```ts
 * export const NoteStore = Symbol('NoteStore');
 * export const NOTE_STORE_PORT = port<NoteStore>(NoteStore, 'notes.store');
 * ```
 * @publicApi
 */
export function port<T>(token: symbol, option: string): Port<T> {
  return Object.freeze({ token, option });
}
