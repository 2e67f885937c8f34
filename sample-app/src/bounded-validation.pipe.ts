import { BadRequestException, ValidationPipe, type ArgumentMetadata } from '@nestjs/common';

/** How deep a body may nest: the MCP endpoint's own bound (`http.json.maxDepth`, 64). */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` holds arrays or plain objects nested more than `most` levels, found without recursion. */
function nestedDeeperThan(value: unknown, most: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [next, level] = pending.pop() as [unknown, number];
    const children = Array.isArray(next)
      ? next
      : next !== null &&
          typeof next === 'object' &&
          [Object.prototype, null].includes(Object.getPrototypeOf(next) as object | null)
        ? Object.values(next)
        : undefined;
    if (children === undefined) continue;
    if (level > most) return true;
    for (const child of children) pending.push([child, level + 1]);
  }
  return false;
}

/**
 * The sample's global validation: Nest's `ValidationPipe`, once the body is known to nest at most
 * {@link MAX_BODY_DEPTH} levels. class-transformer and class-validator walk a body recursively, so a
 * body of 20,000 nested arrays — 40 KB, within the body parsers' limits — overflowed the stack and
 * answered HTTP 500; deeper than the bound, a body is refused with 400 before validation.
 */
export class BoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && nestedDeeperThan(value, MAX_BODY_DEPTH))
      throw new BadRequestException(`Request body nested more than ${MAX_BODY_DEPTH} levels deep`);
    return super.transform(value, metadata) as Promise<unknown>;
  }
}
