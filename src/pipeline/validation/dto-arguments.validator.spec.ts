import 'reflect-metadata';
import { BadRequestException, ValidationPipe, type Type as ClassType } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsBoolean,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { createDtoArgumentsValidator } from './dto-arguments.validator';
import { MAX_REPORTED_ERRORS } from './arguments-validator.interface';
import { OMITTED_ERRORS_MESSAGE } from './validation-messages';

class Author {
  @IsString() name!: string;
  @IsOptional() @IsEmail() email?: string;
}

class Tag {
  @IsString() @MaxLength(10) label!: string;
}

class CreateNote {
  @IsString() @IsNotEmpty() title!: string;
  @IsString() body!: string;
  @IsOptional() @IsBoolean() pinned?: boolean;
  @IsOptional() @IsInt() priority?: number;
  @ValidateNested() @Type(() => Author) author!: Author;
  @IsOptional() @ArrayMinSize(2) @ValidateNested({ each: true }) @Type(() => Tag) tags?: Tag[];
}

const valid = { title: 'Hello', body: 'World', author: { name: 'Ada' } };

function failure(dto: ClassType<unknown>, args: Record<string, unknown>): string[] {
  const outcome = createDtoArgumentsValidator(dto).validate(args);
  if (outcome.ok) throw new Error('expected the arguments to be refused');
  return outcome.errors;
}

async function pipeOutcome(dto: ClassType<unknown>, args: unknown) {
  const pipe = new ValidationPipe({ transform: true, whitelist: true });
  try {
    return { ok: true, value: await pipe.transform(args, { type: 'body', metatype: dto }) };
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    const { message } = (error as BadRequestException).getResponse() as { message: string[] };
    return { ok: false, errors: message };
  }
}

describe('createDtoArgumentsValidator', () => {
  const validator = createDtoArgumentsValidator(CreateNote);

  it('answers valid arguments with an instance of the DTO, nested DTOs converted', () => {
    const outcome = validator.validate({ ...valid, tags: [{ label: 'a' }, { label: 'b' }] });

    expect(outcome.ok).toBe(true);
    const value = (outcome as { value: CreateNote }).value;
    expect(value).toBeInstanceOf(CreateNote);
    expect(value.author).toBeInstanceOf(Author);
    expect(value.tags?.[1]).toBeInstanceOf(Tag);
    expect(value).toEqual({ ...valid, tags: [{ label: 'a' }, { label: 'b' }] });
  });

  it('strips unknown properties, nested ones too, without touching the given arguments', () => {
    const args = { ...valid, extra: 1, author: { name: 'Ada', role: 'admin' } };
    const outcome = validator.validate(args);

    expect(outcome).toEqual({
      ok: true,
      value: { title: 'Hello', body: 'World', author: { name: 'Ada' } },
    });
    expect(args.extra).toBe(1);
    expect(args.author).toEqual({ name: 'Ada', role: 'admin' });
  });

  it('reports each broken rule as ValidationPipe words it', () => {
    expect(failure(CreateNote, { body: 'x', author: { name: 'Ada' } })).toEqual([
      'title should not be empty',
      'title must be a string',
    ]);
  });

  it('prefixes nested messages with their path', () => {
    expect(
      failure(CreateNote, {
        ...valid,
        author: { name: 7, email: 'nope' },
        tags: [{ label: 'ok' }, { label: 'far too long a label' }],
      }),
    ).toEqual([
      'author.name must be a string',
      'author.email must be an email',
      'tags.1.label must be shorter than or equal to 10 characters',
    ]);
  });

  it('checks types strictly, converting nothing', () => {
    expect(failure(CreateNote, { ...valid, body: 5, pinned: 'true', priority: '3' })).toEqual([
      'body must be a string',
      'pinned must be a boolean value',
      'priority must be an integer number',
    ]);
  });

  it('refuses a nested DTO that is not an object, and arguments that are not an object', () => {
    expect(failure(CreateNote, { title: 't', body: 'b', author: 'Ada' })).toEqual([
      'nested property author must be either object or array',
    ]);
    expect(failure(CreateNote, [] as never)).toEqual(['Validation failed (object is expected)']);
  });

  it('drops prototype keys, so an own "__proto__" cannot smuggle arguments past the rules', () => {
    const hostile = JSON.parse(
      '{"__proto__": {"title": "x"}, "constructor": {"name": "y"}, "body": 1, "author": {"name": "A"}}',
    ) as Record<string, unknown>;

    expect(failure(CreateNote, hostile)).toEqual([
      'title should not be empty',
      'title must be a string',
      'body must be a string',
    ]);
  });

  describe('keys named like Object.prototype members, at any depth', () => {
    class Loose {
      @IsString() title!: string;
      @IsOptional() @IsObject() meta?: Record<string, unknown>;
    }
    const loose = createDtoArgumentsValidator(Loose);
    const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

    it.each(names)(
      'accepts "%s" in an untyped nested object, as class-transformer would convert it',
      (name) => {
        const meta = JSON.parse(
          `{"${name}": {"${name}": 1}, "kept": [{"${name}": 2, "x": 3}]}`,
        ) as object;
        const args = { title: 'Hello', meta };
        const snapshot = structuredClone(args);

        const outcome = loose.validate(args);

        expect(outcome.ok).toBe(true);
        const value = (outcome as { value: Loose }).value;
        expect(value).toBeInstanceOf(Loose);
        // class-transformer leaves out every name a new object already has; only `prototype` stays.
        expect(value.meta?.kept).toEqual([
          name === 'prototype' ? { prototype: 2, x: 3 } : { x: 3 },
        ]);
        expect(args).toEqual(snapshot);
      },
    );

    it('hands arguments without such keys to class-transformer as they are', () => {
      const args = { title: 'Hello', meta: { list: [{ a: 1 }] } };
      const outcome = loose.validate(args);
      expect((outcome as { value: Loose }).value.meta).toEqual(args.meta);
    });

    it('validates a nested object without the skipped keys', () => {
      const outcome = loose.validate({
        title: 'Hello',
        meta: JSON.parse('{"constructor": 1}') as object,
      });
      expect(outcome).toEqual({ ok: true, value: expect.any(Loose) });
      expect((outcome as { value: Loose }).value.meta).toEqual({});
    });
  });

  it(`reports at most ${MAX_REPORTED_ERRORS} messages, then says more were left out`, () => {
    const tags = Array.from({ length: 30 }, () => ({ label: 1 }));
    const errors = failure(CreateNote, { ...valid, tags });

    expect(errors).toHaveLength(MAX_REPORTED_ERRORS + 1);
    expect(errors[0]).toBe('tags.0.label must be shorter than or equal to 10 characters');
    expect(errors[MAX_REPORTED_ERRORS]).toBe(OMITTED_ERRORS_MESSAGE);
  });

  describe('agrees with ValidationPipe({ transform: true, whitelist: true })', () => {
    it.each<[string, Record<string, unknown>]>([
      ['valid arguments', { ...valid, pinned: true, priority: 2 }],
      ['unknown properties', { ...valid, extra: true, author: { name: 'A', x: 1 } }],
      ['an empty object', {}],
      ['wrong types', { title: 1, body: false, pinned: 'no', priority: 1.5, author: 'x' }],
      ['nested errors', { ...valid, author: { email: 'bad' } }],
      [
        'an array rule next to item errors',
        { ...valid, tags: [{ label: 'this label is too long' }] },
      ],
      ['items that are not objects', { ...valid, tags: ['a', 'b'] }],
    ])('%s', async (_case, args) => {
      const ours = createDtoArgumentsValidator(CreateNote).validate(structuredClone(args));
      expect(ours).toEqual(await pipeOutcome(CreateNote, structuredClone(args)));
    });
  });
});
