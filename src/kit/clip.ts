const MAX_ECHO = 128;

/**
 * A client-supplied value made safe to echo in a message or log line: control characters replaced
 * and at most `maxLength` (128) characters, so a hostile name can neither flood logs nor forge log
 * lines.
 * @internal
 */
export function clip(value: unknown, maxLength = MAX_ECHO): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const text = String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
