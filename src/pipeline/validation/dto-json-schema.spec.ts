import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MinLength, ValidateNested } from 'class-validator';
import { dtoToJsonSchema, hasValidationRules } from './dto-json-schema';

// Each factory stands for a module of its own: the classes share names, not identities.
function billingModule() {
  class Address {
    @IsString() street!: string;
  }
  class Order {
    @IsString() @MinLength(1) reference!: string;
    @ValidateNested() @Type(() => Address) billing!: Address;
  }
  return { Address, Order };
}

function shippingModule() {
  class Address {
    @IsInt() zip!: number;
    @IsOptional() @IsString() city?: string;
  }
  class Order {
    @IsInt() parcels!: number;
    @ValidateNested({ each: true }) @Type(() => Address) stops!: Address[];
  }
  return { Address, Order };
}

function refsOf(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((item) => refsOf(item, found));
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref') found.push(value as string);
      else refsOf(value, found);
    }
  }
  return found;
}

function expectEveryRefResolves(schema: Record<string, unknown>): void {
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  for (const ref of refsOf(schema)) {
    expect(ref).toMatch(/^#\/\$defs\//);
    expect(defs[ref.slice('#/$defs/'.length)]).toBeDefined();
  }
}

describe('dtoToJsonSchema', () => {
  const billing = billingModule();
  const shipping = shippingModule();

  it('gives two same-named root DTOs their own schemas', () => {
    expect(dtoToJsonSchema(billing.Address)).toEqual({
      type: 'object',
      properties: { street: { type: 'string' } },
      required: ['street'],
    });
    expect(dtoToJsonSchema(shipping.Address)).toEqual({
      type: 'object',
      properties: { zip: { type: 'integer' }, city: { type: 'string' } },
      required: ['zip'],
    });
  });

  it('gives two same-named nested DTOs their own definitions', () => {
    const billingSchema = dtoToJsonSchema(billing.Order);
    const shippingSchema = dtoToJsonSchema(shipping.Order);

    expect(billingSchema).toEqual({
      type: 'object',
      properties: {
        reference: { type: 'string', minLength: 1 },
        billing: { $ref: '#/$defs/Address' },
      },
      required: ['reference', 'billing'],
      $defs: {
        Address: {
          type: 'object',
          properties: { street: { type: 'string' } },
          required: ['street'],
        },
      },
    });
    expect(shippingSchema).toEqual({
      type: 'object',
      properties: {
        parcels: { type: 'integer' },
        stops: { type: 'array', items: { $ref: '#/$defs/Address' } },
      },
      required: ['parcels', 'stops'],
      $defs: {
        Address: {
          type: 'object',
          properties: { zip: { type: 'integer' }, city: { type: 'string' } },
          required: ['zip'],
        },
      },
    });
  });

  it('names distinct same-named nested DTOs of one schema apart', () => {
    class Both {
      @ValidateNested() @Type(() => billing.Address) from!: InstanceType<typeof billing.Address>;
      @ValidateNested() @Type(() => shipping.Address) to!: InstanceType<typeof shipping.Address>;
      @IsOptional() @ValidateNested() @Type(() => billing.Address) again?: unknown;
    }
    const schema = dtoToJsonSchema(Both);

    expect(schema.properties).toEqual({
      from: { $ref: '#/$defs/Address' },
      to: { $ref: '#/$defs/Address_2' },
      again: { $ref: '#/$defs/Address' },
    });
    expect(Object.keys(schema.$defs as object)).toEqual(['Address', 'Address_2']);
    expect((schema.$defs as Record<string, { properties: object }>).Address_2.properties).toEqual({
      zip: { type: 'integer' },
      city: { type: 'string' },
    });
    expectEveryRefResolves(schema);
  });

  it('defines DTOs nested at any depth, and an array of DTOs without `each` as an array', () => {
    class Leaf {
      @IsString() name!: string;
    }
    class Branch {
      @ValidateNested() @Type(() => Leaf) leaves!: Leaf[];
    }
    class Tree {
      @ValidateNested() @Type(() => Branch) trunk!: Branch;
    }
    const schema = dtoToJsonSchema(Tree);

    expect((schema.$defs as Record<string, unknown>).Branch).toEqual({
      type: 'object',
      properties: { leaves: { type: 'array', items: { $ref: '#/$defs/Leaf' } } },
      required: ['leaves'],
    });
    expectEveryRefResolves(schema);
  });

  it('lets a recursive DTO point at its own definition', () => {
    class Category {
      @IsString() label!: string;
      @IsOptional() @ValidateNested({ each: true }) @Type(() => Category) children?: Category[];
    }
    const schema = dtoToJsonSchema(Category);

    expect(schema.properties).toEqual({
      label: { type: 'string' },
      children: { type: 'array', items: { $ref: '#/$defs/Category' } },
    });
    expect(Object.keys(schema.$defs as object)).toEqual(['Category']);
    expectEveryRefResolves(schema);
  });

  it('includes inherited rules', () => {
    class Base {
      @IsString() id!: string;
    }
    class Derived extends Base {
      @IsInt() count!: number;
    }
    expect(dtoToJsonSchema(Derived)).toEqual({
      type: 'object',
      properties: { count: { type: 'integer' }, id: { type: 'string' } },
      required: ['count', 'id'],
    });
  });

  it('leaves a nested class without rules open instead of pointing nowhere', () => {
    class Plain {
      value!: string;
    }
    class Holder {
      @ValidateNested() @Type(() => Plain) plain!: Plain;
    }
    const schema = dtoToJsonSchema(Holder);

    expect(schema.properties).toEqual({ plain: {} });
    expect(schema.$defs).toBeUndefined();
  });

  it('gives a class without class-validator rules an open object schema', () => {
    class Untyped {
      anything?: unknown;
    }
    expect(hasValidationRules(Untyped)).toBe(false);
    expect(dtoToJsonSchema(Untyped)).toEqual({ type: 'object', properties: {} });
  });
});
