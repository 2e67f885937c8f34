import { randomBytes } from 'node:crypto';
import { isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { sha256Base64Url } from '../../../kit/sha256';

/** Random bytes in a handle: 256 bits, so a handle can be neither guessed nor enumerated. */
const HANDLE_BYTES = 32;
const HANDLE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A fresh handle: random bytes in base64url, meaning nothing. @internal */
export function newStateHandle(): string {
  return randomBytes(HANDLE_BYTES).toString('base64url');
}

/** Whether `value` could be a handle this module issued; anything else never reaches the repository. @internal */
export function isWellFormedStateHandle(value: string): boolean {
  return HANDLE_SHAPE.test(value);
}

/**
 * What a handle is bound to — the caller's partition and the operation — as one digest, so the
 * repository compares one string and holds no identity in clear.
 * @internal
 */
export function stateHandleBinding(partition: string, method: string, target: string): string {
  return sha256Base64Url(JSON.stringify([partition, method, target]));
}

/** The application's data as stored: JSON text with exact numbers. @internal */
export function encodeStateHandleData(data: unknown): string | undefined {
  return stringify(data) as string | undefined;
}

/** Stored data back: safe numbers as numbers, the rest as exact `LosslessNumber`s. @internal */
export function decodeStateHandleData(text: string): unknown {
  return parse(text, null, (token: string) =>
    isSafeNumber(token) ? Number(token) : new LosslessNumber(token),
  );
}
