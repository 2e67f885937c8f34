import { Injectable, Logger } from '@nestjs/common';
import {
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';
import { internalError } from '../errors/internal-error';
import type { McpOperationCall } from './mcp-operation-call';
import { undeclaredInputMessage } from '../input/undeclared-input.message';
import { missingCapabilities } from '../input/client-capability-requirements';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpInputRequirement } from '../input/mcp-input-requirement.enum';

function describeMissing(required: ClientCapabilities): string {
  return Object.entries(required as Record<string, Record<string, unknown>>)
    .map(([name, sub]) =>
      Object.keys(sub).length > 0
        ? Object.keys(sub)
            .map((key) => `${name}.${key}`)
            .join(', ')
        : name,
    )
    .join(', ');
}

/**
 * Gates an operation on the client capabilities its `@McpMayRequestInput` declarations need:
 * `REQUIRED` ones after guards and before the handler on every round ({@link checkRequired}),
 * `CONDITIONAL` ones when the handler emits such a request ({@link checkEmitted}). All missing
 * capabilities are reported in one -32021 (HTTP 400). Emitting a request that was never declared
 * is a server bug, answered with a bare -32603.
 * @internal
 */
@Injectable()
export class CapabilityGate {
  private readonly logger = new Logger('McpModule');

  /** Refuses the call when the client lacks a capability a `REQUIRED` declaration needs. */
  checkRequired(call: McpOperationCall): void {
    const required = call.profile.declarations.filter(
      (declaration) => declaration.requirement === McpInputRequirement.REQUIRED,
    );
    if (required.length === 0) return;
    this.assertSupported(
      call.context.clientCapabilities,
      required.map((declaration) => declaration.type),
    );
  }

  /**
   * Checks what the handler emitted: every input request declared, every capability it needs
   * present. Operations without declarations get here too: what they emit is undeclared.
   */
  checkEmitted(call: McpOperationCall, result: McpInputRequiredResult): void {
    const request = call.context;
    const requests = [...result.inputRequests];
    const undeclared = requests.filter(
      ([, inputRequest]) =>
        !call.profile.declarations.some((declaration) => declaration.type === inputRequest.type),
    );
    if (undeclared.length > 0) {
      this.logger.error(undeclaredInputMessage(request.method, request.target, undeclared));
      throw internalError();
    }
    this.assertSupported(
      request.clientCapabilities,
      requests.map(([, inputRequest]) => inputRequest.type),
    );
  }

  private assertSupported(
    capabilities: ClientCapabilities,
    types: Parameters<typeof missingCapabilities>[1],
  ): void {
    const missing = missingCapabilities(capabilities, types);
    if (missing) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `Missing required client capabilities: ${describeMissing(missing)}`,
      );
    }
  }
}
