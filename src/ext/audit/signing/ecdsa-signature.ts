/**
 * An ECDSA P-256 signature in DER (what AWS KMS answers) as `r || s`, 32 bytes each (what the
 * audit trail stores, as JWS's ES256 does).
 * @internal
 */
export function derToP1363(der: Uint8Array): Buffer {
  const bytes = Buffer.from(der);
  let at = 0;
  const expect = (tag: number) => {
    if (bytes[at++] !== tag) throw new Error('not a DER ECDSA signature');
  };
  const length = () => {
    let value = bytes[at++];
    if (value & 0x80) {
      const count = value & 0x7f;
      value = 0;
      for (let index = 0; index < count; index++) value = (value << 8) | bytes[at++];
    }
    return value;
  };
  expect(0x30);
  length();
  const integer = () => {
    expect(0x02);
    const size = length();
    let value = bytes.subarray(at, at + size);
    at += size;
    while (value.length > 32 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) throw new Error('not a P-256 signature');
    return Buffer.concat([Buffer.alloc(32 - value.length), value]);
  };
  return Buffer.concat([integer(), integer()]);
}
