/** Largest application-protected state, in UTF-8 bytes. @internal */
export const MAX_APPLICATION_STATE_BYTES = 65_536;
