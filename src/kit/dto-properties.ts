import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

const declaredProperties = new WeakMap<Type<unknown>, ReadonlySet<string>>();

/**
 * The properties a DTO declares with class-validator rules, its own and inherited: what
 * `whitelist` keeps. Reading only these before any conversion keeps a hostile input with thousands
 * of extra fields from costing anything.
 * @internal
 */
export function declaredPropertiesOf(dto: Type<unknown>): ReadonlySet<string> {
  let names = declaredProperties.get(dto);
  if (!names) {
    names = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((metadata) => metadata.propertyName),
    );
    declaredProperties.set(dto, names);
  }
  return names;
}

/** The members of `input` the DTO declares, in a fresh object (never `__proto__`). @internal */
export function pickDeclared(
  dto: Type<unknown>,
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const declared = declaredPropertiesOf(dto);
  const picked: Record<string, unknown> = {};
  for (const name of declared) {
    if (name !== '__proto__' && Object.hasOwn(input, name)) picked[name] = input[name];
  }
  return picked;
}
