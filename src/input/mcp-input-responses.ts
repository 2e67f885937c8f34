import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { declaredPropertiesOf } from '../kit/dto-properties';
import { LosslessNumber } from 'lossless-json';
import { McpProtocolException } from '../kit/errors/mcp-protocol.exception';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import type {
  McpElicitValue,
  McpElicitationResponse,
  McpInputResponse,
} from './mcp-input-response';

/** An elicitation answer whose accepted content was converted to and validated as a DTO. @publicApi */
export interface McpTypedElicitationResponse<T> {
  readonly action: 'accept' | 'decline' | 'cancel';
  /** The validated DTO; present only for `accept`. */
  readonly content: T | undefined;
}

/**
 * The accepted content as the DTO's plain input: only the properties the DTO declares (checked
 * before any conversion, so a hostile answer with thousands of extra fields costs nothing), with
 * exact numbers as the declared type wants them.
 */
function contentForDto(
  dto: Type<unknown>,
  content: Readonly<Record<string, McpElicitValue>>,
): Record<string, unknown> {
  // Null prototype: a "__proto__" field stays a field for class-transformer to skip, never a prototype.
  const plain = Object.create(null) as Record<string, unknown>;
  const declared = declaredPropertiesOf(dto);
  for (const [field, value] of Object.entries(content)) {
    if (!declared.has(field)) continue;
    if (!(value instanceof LosslessNumber)) {
      plain[field] = value;
      continue;
    }
    const type = Reflect.getMetadata('design:type', dto.prototype as object, field) as unknown;
    // A `string` property keeps the exact digits; anything else gets a JavaScript number.
    plain[field] = type === String ? value.value : Number(value.value);
  }
  return plain;
}

/**
 * The input responses of this round, validated against the protocol's result shapes.
 *
 * `find` answers only for keys the server asked for in the previous round (when that is known,
 * i.e. with framework-protected state); other keys stay visible in `unexpectedKeys` and `asMap`
 * but are never returned as answers.
 *
 * @publicApi
 */
export class McpInputResponses {
  private constructor(
    private readonly responses: ReadonlyMap<string, McpInputResponse>,
    private readonly expectedKeys: ReadonlySet<string> | undefined,
  ) {
    Object.freeze(this);
  }

  /** No responses (a first round). */
  static empty(): McpInputResponses {
    return new McpInputResponses(new Map(), undefined);
  }

  /** Responses from a plain record, for tests. */
  static from(
    responses: Record<string, McpInputResponse>,
    expectedKeys?: Iterable<string>,
  ): McpInputResponses {
    return new McpInputResponses(
      new Map(Object.entries(responses)),
      expectedKeys ? new Set(expectedKeys) : undefined,
    );
  }

  /** Responses as the module read them from a request, held as they are. @internal */
  static read(
    responses: Map<string, McpInputResponse>,
    expectedKeys: readonly string[] | undefined,
  ): McpInputResponses {
    return new McpInputResponses(responses, expectedKeys ? new Set(expectedKeys) : undefined);
  }

  /** A builder, for tests. */
  static builder(): {
    response(key: string, response: McpInputResponse): ReturnType<typeof McpInputResponses.builder>;
    build(): McpInputResponses;
  } {
    const entries = new Map<string, McpInputResponse>();
    const builder = {
      response(key: string, response: McpInputResponse) {
        entries.set(key, response);
        return builder;
      },
      build: () => new McpInputResponses(new Map(entries), undefined),
    };
    return builder;
  }

  /** Whether no response arrived. */
  get isEmpty(): boolean {
    return this.responses.size === 0;
  }

  /** The response to `key`, or `undefined` when it is missing (re-request it) or was not asked for. */
  find(key: string): McpInputResponse | undefined;
  /**
   * The elicitation answer to `key` with its accepted content validated as `dto` (class-validator).
   * Invalid content is answered with -32602; a non-elicitation response counts as missing.
   */
  find<T extends object>(key: string, dto: Type<T>): McpTypedElicitationResponse<T> | undefined;
  find<T extends object>(
    key: string,
    dto?: Type<T>,
  ): McpInputResponse | McpTypedElicitationResponse<T> | undefined {
    if (this.expectedKeys && !this.expectedKeys.has(key)) return undefined;
    const response = this.responses.get(key);
    if (!dto) return response;
    if (response?.kind !== 'elicitation') return undefined;
    return { action: response.action, content: this.toDto(key, response, dto) };
  }

  /** Keys that arrived without having been asked for in the previous round. */
  get unexpectedKeys(): string[] {
    return this.expectedKeys
      ? [...this.responses.keys()].filter((key) => !this.expectedKeys?.has(key))
      : [];
  }

  /** Every valid response by key, including unexpected ones. */
  asMap(): ReadonlyMap<string, McpInputResponse> {
    return this.responses;
  }

  private toDto<T extends object>(
    key: string,
    response: McpElicitationResponse,
    dto: Type<T>,
  ): T | undefined {
    if (response.action !== 'accept' || response.content === undefined) return undefined;
    const instance = plainToInstance(dto, contentForDto(dto, response.content));
    const errors = validateSync(instance, { forbidUnknownValues: false });
    if (errors.length > 0) {
      const messages = errors.flatMap((error) => Object.values(error.constraints ?? {}));
      throw new McpProtocolException(
        McpErrorCode.InvalidParams,
        `Invalid input response "${key}"`,
        { key, errors: messages },
      );
    }
    return instance;
  }
}
