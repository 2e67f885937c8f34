import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { ArgumentsValidator } from './arguments-validator.interface';
import { pickDeclared } from './dto-properties';
import { cappedMessages, classValidatorMessages } from './validation-messages';

/**
 * Validates arguments as a class-validator DTO, as `ValidationPipe({ transform: true, whitelist:
 * true })` would: converted with class-transformer (nested DTOs through `@Type`), unknown
 * properties stripped, no implicit type conversion, the same messages. Rules marked `async` are not
 * run (validation is synchronous). The given arguments are never changed: class-transformer builds
 * new objects, and skips `__proto__` and `constructor` keys as it does.
 */
export function createDtoArgumentsValidator(dto: Type<unknown>): ArgumentsValidator {
  return {
    validate(args) {
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        return { ok: false, errors: ['Validation failed (object is expected)'] };
      }
      // Undeclared members are stripped by whitelist anyway; dropping them first saves converting them.
      const instance = plainToInstance(dto, pickDeclared(dto, args)) as object;
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
