/** A JSON Schema object, advertised exactly as written. */
export type JsonSchemaObject = Record<string, unknown>;
