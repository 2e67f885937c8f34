/** A JSON Schema object, advertised exactly as written. @publicApi */
export type JsonSchemaObject = Record<string, unknown>;
