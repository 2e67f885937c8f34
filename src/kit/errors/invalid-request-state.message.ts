/**
 * The one message every rejected request state gets, whatever the reason (the reason is logged).
 * @internal
 */
export const INVALID_REQUEST_STATE_MESSAGE = 'Invalid request state';
