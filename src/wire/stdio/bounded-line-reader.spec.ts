import { BoundedLineReader } from './bounded-line-reader';

function reader(maxBytes: number) {
  const lines: string[] = [];
  let oversized = 0;
  const read = new BoundedLineReader(
    maxBytes,
    (line) => lines.push(line),
    () => oversized++,
  );
  return { read, lines, oversized: () => oversized };
}

describe('BoundedLineReader', () => {
  it('joins a line sent in pieces and splits lines sent together', () => {
    const { read, lines } = reader(100);
    read.push('{"a":');
    read.push(Buffer.from('1}\n{"b":2}\n{"c"'));
    read.push(':3}\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a multi-byte character split between chunks whole', () => {
    const { read, lines } = reader(100);
    const bytes = Buffer.from('"é"\n');
    read.push(bytes.subarray(0, 2));
    read.push(bytes.subarray(2));
    expect(lines).toEqual(['"é"']);
  });

  it('reports a line over the bound once, as soon as it is over, drops the rest of it, and reads the next', () => {
    const { read, lines, oversized } = reader(10);
    read.push('x'.repeat(8));
    expect(oversized()).toBe(0);
    read.push('x'.repeat(8));
    expect(oversized()).toBe(1);
    for (let chunk = 0; chunk < 100; chunk++) read.push('y'.repeat(1000));
    read.push('zz\n{"ok":1}\n');
    expect(oversized()).toBe(1);
    expect(lines).toEqual(['{"ok":1}']);
  });

  it('refuses a line over the bound that arrives whole, and goes on with the same chunk', () => {
    const { read, lines, oversized } = reader(10);
    read.push(`${'x'.repeat(20)}\n{"ok":2}\n`);
    expect(oversized()).toBe(1);
    expect(lines).toEqual(['{"ok":2}']);
  });
});
