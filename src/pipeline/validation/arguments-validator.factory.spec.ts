import 'reflect-metadata';
import { IsString } from 'class-validator';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import { createArgumentsValidator } from './arguments-validator.factory';

class TitleArgs {
  @IsString() title!: string;
}

class CodeArgs {
  @IsString() code!: string;
}

class RulelessArgs {
  title?: string;
}

const codeSchema = { type: 'object', properties: { code: { type: 'integer' } } };
const WHERE = 'Tools.run()';

async function errorsFor(validator: ReturnType<typeof createArgumentsValidator>, args: object) {
  const outcome = await validator?.validate(args as Record<string, unknown>);
  return outcome && !outcome.ok ? outcome.errors : [];
}

describe('createArgumentsValidator', () => {
  it('validates a tool against its raw inputSchema, which wins over any DTO', async () => {
    const validator = createArgumentsValidator(
      { kind: 'tool', inputSchema: codeSchema, input: TitleArgs, argsType: CodeArgs },
      WHERE,
    );
    expect(await errorsFor(validator, { code: 'x' })).toEqual(['/code must be integer']);
    expect(await validator?.validate({ code: 1 })).toEqual({ ok: true, value: { code: 1 } });
  });

  it('validates a tool against its `input` DTO, which wins over the @McpArgs() type', async () => {
    const validator = createArgumentsValidator(
      { kind: 'tool', input: TitleArgs, argsType: CodeArgs },
      WHERE,
    );
    expect(await errorsFor(validator, { code: 'x' })).toEqual(['title must be a string']);
  });

  it('validates a tool or a prompt against its @McpArgs() DTO', async () => {
    for (const kind of ['tool', 'prompt'] as const) {
      const validator = createArgumentsValidator({ kind, argsType: TitleArgs }, WHERE);
      const outcome = await validator?.validate({ title: 'Hi', extra: 1 });
      expect(outcome).toEqual({ ok: true, value: { title: 'Hi' } });
      expect((outcome as { value: unknown }).value).toBeInstanceOf(TitleArgs);
    }
  });

  it('builds nothing where nothing is advertised: resources, no DTO, a DTO without rules', async () => {
    expect(
      createArgumentsValidator(
        { kind: 'resource', argsType: TitleArgs, inputSchema: codeSchema },
        WHERE,
      ),
    ).toBeUndefined();
    expect(createArgumentsValidator({ kind: 'tool' }, WHERE)).toBeUndefined();
    expect(createArgumentsValidator({ kind: 'prompt' }, WHERE)).toBeUndefined();
    expect(
      createArgumentsValidator({ kind: 'tool', argsType: RulelessArgs }, WHERE),
    ).toBeUndefined();
  });

  it('fails at build time, naming the operation, on a raw schema that cannot be compiled', async () => {
    expect(() =>
      createArgumentsValidator(
        { kind: 'tool', inputSchema: { type: 'object', properties: { t: { maxLength: 'x' } } } },
        WHERE,
      ),
    ).toThrow(InvalidOperationDefinitionError);
    expect(() =>
      createArgumentsValidator(
        { kind: 'tool', inputSchema: { type: 'object', required: 1 } },
        WHERE,
      ),
    ).toThrow(/Tools\.run\(\)/);
  });
});
