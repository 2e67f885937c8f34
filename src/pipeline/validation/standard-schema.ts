/**
 * A validator that implements Standard Schema (https://standardschema.dev): zod 4, valibot,
 * arktype and others. For a tool's or prompt's `input`, it must also describe itself as JSON
 * Schema (Standard JSON Schema, `~standard.jsonSchema`), as zod 4 and arktype do and valibot does
 * through `toStandardJsonSchema()` of `@valibot/to-json-schema`: that is what the operation
 * advertises.
 *
 * @publicApi
 */
export interface McpStandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => McpStandardSchemaResult<Output> | Promise<McpStandardSchemaResult<Output>>;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** What a Standard Schema's `validate` answers. @publicApi */
export type McpStandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
      }>;
    };

/** Whether `value` is a Standard Schema validator (rather than a class). @internal */
export function isStandardSchema(value: unknown): value is McpStandardSchema {
  const standard = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.[
    '~standard'
  ];
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof standard === 'object' &&
    standard !== null &&
    standard.version === 1 &&
    typeof standard.validate === 'function'
  );
}
