import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { SyncArgumentsValidator } from './arguments-validator.interface';
import { pickDeclared } from '../../kit/dto-properties';
import { cappedMessages, classValidatorMessages } from './validation-messages';

/** Keys class-transformer skips; left in an untyped nested object, `constructor` makes it throw. */
const SKIPPED_KEYS: ReadonlySet<string> = new Set(['constructor', '__proto__']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * The arguments without the keys class-transformer skips, at every depth; parts that had none are
 * returned as they are. class-transformer converts an object that has no `@Type` with
 * `new value.constructor()`, so an own `constructor` sent by the client (`{"meta":
 * {"constructor": 1}}`) would make it throw instead of being skipped.
 */
function withoutSkippedKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withoutSkippedKeys);
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (SKIPPED_KEYS.has(key)) {
      changed = true;
      continue;
    }
    const kept = withoutSkippedKeys(member);
    changed ||= kept !== member;
    copy[key] = kept;
  }
  return changed ? copy : value;
}

/**
 * Validates arguments as a class-validator DTO, as `ValidationPipe({ transform: true, whitelist:
 * true })` would: converted with class-transformer (nested DTOs through `@Type`), unknown
 * properties stripped, no implicit type conversion, the same messages. Rules marked `async` are not
 * run (validation is synchronous). The given arguments are never changed: class-transformer builds
 * new objects, and `__proto__` and `constructor` keys, which it skips, are left out beforehand at
 * every depth (see {@link withoutSkippedKeys}).
 * @internal
 */
export function createDtoArgumentsValidator(dto: Type<unknown>): SyncArgumentsValidator {
  return {
    validate(args) {
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        return { ok: false, errors: ['Validation failed (object is expected)'] };
      }
      // Undeclared members are stripped by whitelist anyway; dropping them first saves converting them.
      const instance = plainToInstance(dto, withoutSkippedKeys(pickDeclared(dto, args))) as object;
      const errors = validateSync(instance, {
        whitelist: true,
        forbidUnknownValues: false,
        validationError: { target: false },
      });
      return errors.length === 0
        ? { ok: true, value: instance }
        : { ok: false, errors: cappedMessages(classValidatorMessages(errors)) };
    },
  };
}
