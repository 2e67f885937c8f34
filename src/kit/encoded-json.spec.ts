import {
  EncodedJsonString,
  jsonPieces,
  serializeEncodedStringsInto,
  withEncodedStrings,
} from './encoded-json';

const TEXT = 'line "one"\n\u0001 Ünïcödé ✓ \u2028 end';

/** The bytes a stream gives, all of them. */
async function drained(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** A stream giving `bytes` in chunks of `size`. */
function chunked(bytes: Buffer, size: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size)
        controller.enqueue(bytes.subarray(at, at + size));
      controller.close();
    },
  });
}

describe('EncodedJsonString', () => {
  afterEach(() => serializeEncodedStringsInto(() => undefined));

  it('holds the JSON text JSON.stringify writes, and serializes to it anywhere', () => {
    const encoded = new EncodedJsonString(TEXT);
    expect(encoded.json.toString('utf8')).toBe(JSON.stringify(TEXT));
    expect(encoded.byteLength).toBe(Buffer.byteLength(JSON.stringify(TEXT)));
    expect(JSON.stringify({ text: encoded })).toBe(JSON.stringify({ text: TEXT }));
  });

  it('is written by jsonPieces as its own bytes, not copied, the text around it as it was', () => {
    const encoded = new EncodedJsonString(TEXT);
    const value = { result: { contents: [{ uri: 'skill://a/b', text: encoded }] }, id: 1 };
    const { pieces, byteLength } = jsonPieces(value);
    expect(pieces).toContain(encoded.json);
    const joined = Buffer.concat(pieces.map((piece) => Buffer.from(piece)));
    expect(joined.toString('utf8')).toBe(
      JSON.stringify({ ...value, result: { contents: [{ uri: 'skill://a/b', text: TEXT }] } }),
    );
    expect(byteLength).toBe(joined.length);
    expect(jsonPieces({ plain: 'x' })).toEqual({ pieces: ['{"plain":"x"}'], byteLength: 13 });
  });

  it("is left out of another serializer's text and written back into its stream, at any chunking", async () => {
    const first = new EncodedJsonString(TEXT);
    const second = new EncodedJsonString('second');
    let parts: Buffer[] | undefined = [];
    serializeEncodedStringsInto(() => parts);
    const text = Buffer.from(JSON.stringify({ a: first, b: [second], c: 'plain' }));
    const captured = parts;
    parts = undefined;
    expect(text.length).toBeLessThan(200);
    const expected = JSON.stringify({ a: TEXT, b: ['second'], c: 'plain' });
    for (const size of [1, 2, 7, 13, 64, text.length])
      expect(
        (await drained(withEncodedStrings(chunked(text, size), [...captured]))).toString('utf8'),
      ).toBe(expected);
  });

  it('never writes a placeholder it has no bytes for', async () => {
    let parts: Buffer[] | undefined = [];
    serializeEncodedStringsInto(() => parts);
    const text = Buffer.from(JSON.stringify({ a: new EncodedJsonString(TEXT) }));
    parts = undefined;
    await expect(drained(withEncodedStrings(chunked(text, 16), []))).rejects.toThrow(
      'An encoded JSON string was written but not captured',
    );
  });

  it('passes a stream without placeholders through, holding back nothing that cannot start one', async () => {
    const frames = Buffer.from('event: message\ndata: {"x":"\\"enc"}\n\n');
    const reader = withEncodedStrings(chunked(frames, frames.length), []).getReader();
    expect(Buffer.from((await reader.read()).value ?? []).toString()).toBe(frames.toString());
  });
});
