import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { bodyRefusal } from './body-refusal';
import type { JsonBodyLimits } from './json-body-limits';
import type { CheckedMessage } from './checked-message';
import type { EndpointRequest, EndpointStage } from './endpoint-stage';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';
import { scanJsonStructure } from './json-structure.scanner';
import { parseJsonBody } from './lossless-json-body';
import {
  paramHeaderProblem,
  scanParamHeaders,
  type ParamHeaderDeclaration,
} from './param-header.validator';
import { malformedParamsField } from './request-params.validator';
import { longNameHeaderMismatch } from './name-header.check';

/**
 * The checks a POST body passes before anything serves it: bounded lossless parsing (depth,
 * nodes, keys, items, string and number lengths), an `Mcp-Name` that disagrees with a name too
 * long to echo, SEP-2243 `Mcp-Param-*` headers that must mirror
 * the arguments a tool marks with `x-mcp-header`, and the shape of `params`. A failing body is
 * answered here, with the documented status and JSON-RPC error.
 * @internal
 */
@Injectable()
export class MessageChecks implements EndpointStage {
  /** By tool entry: a tool registered again at run time has its own. */
  private readonly paramHeaders = new WeakMap<object, readonly ParamHeaderDeclaration[]>();
  private readonly limits: JsonBodyLimits;

  constructor(
    @Inject(TRANSPORT_OPTIONS) options: TransportOptions,
    private readonly registry: McpOperationRegistry,
  ) {
    this.limits = options.body;
  }

  /**
   * The endpoint's stage: a body that passes goes on with its checked message (which guards that
   * read the body see, as after Nest's own JSON parser); one that fails has been answered.
   */
  take(current: EndpointRequest): boolean {
    const checked = this.check(current.raw, current.response, current.text as string);
    if (!checked) return true;
    current.checked = checked;
    (current.request as { body?: unknown }).body = checked.message;
    return false;
  }

  /** The checked message, or `undefined` once the refusal has been answered. */
  check(req: IncomingMessage, res: ServerResponse, text: string): CheckedMessage | undefined {
    const parsed = parseJsonBody(text, this.limits);
    if (!parsed.ok) {
      const refusal = bodyRefusal(parsed.reason, this.limits);
      const id = parsed.reason === 'number_out_of_bounds' ? this.idDespiteNumbers(text) : null;
      if (refusal.status === 413) res.setHeader('Connection', 'close');
      writeJsonRpcHttpError(res, refusal.status, refusal.code, refusal.message, id, refusal.data);
      return undefined;
    }
    const message = parsed.plain as { id?: unknown; method?: unknown; params?: unknown } | null;
    const nameMismatch = longNameHeaderMismatch(req.headers, message?.method, message?.params);
    if (nameMismatch) {
      writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.HeaderMismatch,
        nameMismatch.message,
        message?.id,
        nameMismatch.data,
      );
      return undefined;
    }
    const headerProblem = this.paramHeaderProblem(req, message);
    if (headerProblem) {
      writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.HeaderMismatch,
        `Header mismatch: ${headerProblem}`,
        message?.id,
      );
      return undefined;
    }
    const malformed = malformedParamsField(message?.method, message?.params);
    if (malformed) {
      writeJsonRpcHttpError(res, 200, McpErrorCode.InvalidParams, 'Invalid params', message?.id, {
        field: malformed,
      });
      return undefined;
    }
    return { message: parsed.plain, exactInputResponses: parsed.exactInputResponses };
  }

  /** The id of a message refused for a number, read once the other bounds are known to hold. */
  private idDespiteNumbers(text: string): unknown {
    const limits = { ...this.limits, maxNumberLength: Infinity, maxExponent: Infinity };
    if (scanJsonStructure(text, limits)) return null;
    try {
      return (JSON.parse(text) as { id?: unknown } | null)?.id ?? null;
    } catch {
      return null;
    }
  }

  /** SEP-2243: `Mcp-Param-*` headers must mirror the arguments a tool marks with `x-mcp-header`. */
  private paramHeaderProblem(req: IncomingMessage, body: unknown): string | undefined {
    if (req.headers['mcp-protocol-version'] === undefined) return undefined;
    const message = body as {
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown };
    } | null;
    if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string')
      return undefined;
    const name = message.params.name;
    const tool = this.registry.findTool(name);
    if (!tool) return undefined;
    let declarations = this.paramHeaders.get(tool);
    if (!declarations) {
      declarations = scanParamHeaders(tool.listing.inputSchema);
      this.paramHeaders.set(tool, declarations);
    }
    return declarations.length > 0
      ? paramHeaderProblem(declarations, message.params.arguments, req.headers)
      : undefined;
  }
}
