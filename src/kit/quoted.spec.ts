import { quoted } from './quoted';

describe('quoted', () => {
  it('quotes plain text as JSON does', () => {
    expect(quoted('incident-triage')).toBe('"incident-triage"');
    expect(quoted('/srv/skills/a "b"')).toBe('"/srv/skills/a \\"b\\""');
  });

  it('escapes what would end a line, forge one or drive a terminal', () => {
    const rendered = quoted('x\u001b[31m\nInvalid MCP skill ok\r\u009b2J\u2028\u202etxt.exe');
    expect(rendered).toBe('"x\\u001b[31m\\nInvalid MCP skill ok\\r\\u009b2J\\u2028\\u202etxt.exe"');
    // eslint-disable-next-line no-control-regex -- the point of the check
    expect(rendered).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
  });

  it('keeps at most maxLength characters of a long value', () => {
    expect(quoted('a'.repeat(300), 4)).toBe('"aaaa…"');
  });

  it('renders any value as text', () => {
    expect(quoted(42)).toBe('"42"');
    expect(quoted(undefined)).toBe('"undefined"');
  });
});
