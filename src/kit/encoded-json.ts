import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** `JSON.rawJSON` (Node 21 and later): a primitive's JSON text that `JSON.stringify` writes as is. */
const rawJson = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;

/** Stands for one encoded string in the text {@link jsonPieces} serializes; unguessable. */
const PLACEHOLDER = `encoded-json:${randomUUID()}`;
const QUOTED_PLACEHOLDER = `"${PLACEHOLDER}"`;

const PLACEHOLDER_BYTES = Buffer.from(QUOTED_PLACEHOLDER);

/** The encoded strings met while {@link jsonPieces} serializes, in order; `undefined` otherwise. */
let capturing: Buffer[] | undefined;

/**
 * Where encoded strings go when something else serializes them (the SDK, for the request being
 * served), if that serializer's output goes through {@link withEncodedStrings}; see
 * {@link serializeEncodedStringsInto}.
 */
let ambientSink: (() => Buffer[] | undefined) | undefined;

/**
 * A JSON string value kept as its encoding — the UTF-8 bytes of `JSON.stringify(value)`, quotes
 * included — so a large value is escaped once, when it is made, instead of on every answer. The
 * module's writers ({@link jsonPieces}) send these bytes as they are, without copying them; any
 * other serializer (the SDK's) calls `toJSON` and gets the same JSON text (`JSON.rawJSON`, or the
 * decoded string where Node lacks it).
 * @internal
 */
export class EncodedJsonString {
  /** The UTF-8 JSON text, quotes included. */
  readonly json: Buffer;

  constructor(value: string) {
    this.json = Buffer.from(JSON.stringify(value), 'utf8');
  }

  /** Bytes of the JSON text. */
  get byteLength(): number {
    return this.json.length;
  }

  toJSON(): unknown {
    const sink = capturing ?? ambientSink?.();
    if (sink) {
      sink.push(this.json);
      return PLACEHOLDER;
    }
    const text = this.json.toString('utf8');
    return rawJson ? rawJson(text) : (JSON.parse(text) as string);
  }
}

/**
 * Lets a serializer the module does not call (the SDK's `Response.json`) leave encoded strings out
 * as well: while `sink()` gives an array, each encoded string serialized is put there and stands as
 * a placeholder in the text, which {@link withEncodedStrings} must then replace in the bytes sent.
 * @internal
 */
export function serializeEncodedStringsInto(sink: () => Buffer[] | undefined): void {
  ambientSink = sink;
}

/**
 * `body` with each placeholder an encoded string left replaced by that string's bytes, in the order
 * they were serialized (`parts` fills as they are): the bytes `JSON.stringify` would have written,
 * the large ones handed on without a copy. A placeholder with no string left for it ends the body
 * with an error: never a wrong answer.
 * @internal
 */
export function withEncodedStrings(
  body: ReadableStream<Uint8Array>,
  parts: Buffer[],
): ReadableStream<Uint8Array> {
  // A chunk's end that may be the start of a placeholder, held until the next chunk says.
  let held = Buffer.alloc(0);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        let text = held.length === 0 ? bytes : Buffer.concat([held, bytes]);
        for (
          let at = text.indexOf(PLACEHOLDER_BYTES);
          at !== -1;
          at = text.indexOf(PLACEHOLDER_BYTES)
        ) {
          const part = parts.shift();
          if (!part) {
            controller.error(new Error('An encoded JSON string was written but not captured'));
            return;
          }
          if (at > 0) controller.enqueue(text.subarray(0, at));
          controller.enqueue(part);
          text = text.subarray(at + PLACEHOLDER_BYTES.length);
        }
        const cut = text.length - placeholderStartAtEnd(text);
        if (cut > 0) controller.enqueue(text.subarray(0, cut));
        held = Buffer.from(text.subarray(cut));
      },
      flush(controller) {
        if (held.length > 0) controller.enqueue(held);
      },
    }),
  );
}

/** How many bytes at the end of `text` are the first bytes of a placeholder (none of it whole). */
function placeholderStartAtEnd(text: Buffer): number {
  for (let length = Math.min(text.length, PLACEHOLDER_BYTES.length - 1); length > 0; length--)
    if (text.subarray(text.length - length).equals(PLACEHOLDER_BYTES.subarray(0, length)))
      return length;
  return 0;
}

/** A JSON text in parts: strings and the bytes of {@link EncodedJsonString}s, in order. @internal */
export interface JsonPieces {
  readonly pieces: readonly (string | Buffer)[];
  /** UTF-8 bytes of every piece together. */
  readonly byteLength: number;
}

/**
 * `JSON.stringify(value)` in parts: the encoded strings inside it as their own bytes (not copied),
 * the rest as text. A value without encoded strings is one piece.
 * @internal
 */
export function jsonPieces(value: unknown): JsonPieces {
  const captured: Buffer[] = [];
  let text: string;
  capturing = captured;
  try {
    text = JSON.stringify(value);
  } finally {
    capturing = undefined;
  }
  if (captured.length === 0) return { pieces: [text], byteLength: Buffer.byteLength(text) };
  const around = text.split(QUOTED_PLACEHOLDER);
  if (around.length !== captured.length + 1)
    throw new Error('An encoded JSON string was not found where it was serialized');
  const pieces: (string | Buffer)[] = [];
  let byteLength = 0;
  for (const [index, part] of around.entries()) {
    if (part !== '') {
      pieces.push(part);
      byteLength += Buffer.byteLength(part);
    }
    if (index < captured.length) {
      pieces.push(captured[index]);
      byteLength += captured[index].length;
    }
  }
  return { pieces, byteLength };
}

/**
 * Writes `pieces` to `res` and ends it: each large piece is handed to the socket as it is (Node
 * writes what the socket takes and keeps a reference to the rest), so no answer is copied or
 * escaped on the event loop.
 * @internal
 */
export function endWithPieces(res: ServerResponse, pieces: readonly (string | Buffer)[]): void {
  if (pieces.length === 1) {
    res.end(pieces[0]);
    return;
  }
  res.cork(); // one write of the small parts around the large ones; end() uncorks
  for (const piece of pieces) res.write(piece);
  res.end();
}
