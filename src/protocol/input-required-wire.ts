/** Whether an operation's value is an `input_required` result in wire form. */
export function isInputRequiredResult(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { resultType?: unknown }).resultType === 'input_required';
}
