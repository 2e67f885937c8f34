import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { ProtectedResource } from '../../auth/protected-resource';
import { ResourceServer } from '../../auth/resource-server';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { AnonymousAccess } from './anonymous-access';
import type { EndpointRequest, EndpointStage } from './endpoint-stage';

/**
 * The endpoint's authentication with the built-in resource server (`auth.resourceServer`): every
 * request's access token (and DPoP proof) verified before any guard and before routing, so both
 * paths, both eras and every method see the same `req.auth` or the same 401 challenge.
 * @internal
 */
@Injectable()
export class EndpointAuthentication implements EndpointStage {
  constructor(
    private readonly resourceServer: ResourceServer,
    private readonly resource: ProtectedResource,
    private readonly anonymous: AnonymousAccess,
  ) {}

  /** The endpoint's stage: a request the resource server refuses is answered here, with its challenge. */
  take(current: EndpointRequest): boolean | Promise<boolean> {
    if (!this.enabled) return false;
    return this.authenticate(
      current.request,
      current.raw,
      current.response,
      current.checked?.message,
    ).then((authenticated) => !authenticated);
  }

  /** Whether the resource server checks tokens at all. */
  get enabled(): boolean {
    return this.resourceServer.enabled;
  }

  /**
   * The built-in resource server's check of the bearer token, before any guard: the principal on
   * `req.auth` (both the framework's request and Node's), or the 401 challenge answered here.
   */
  async authenticate(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<boolean> {
    const found = await this.resourceServer.authenticate(req, this.anonymous.of(message));
    if (found.kind === 'principal') {
      for (const [name, value] of Object.entries(found.headers ?? {})) res.setHeader(name, value);
      if (found.auth !== undefined) {
        (req as { auth?: unknown }).auth = found.auth;
        (request as { auth?: unknown }).auth = found.auth;
      }
      return true;
    }
    const { refusal } = found;
    for (const [name, value] of Object.entries(this.resource.headersOf(refusal, req)))
      res.setHeader(name, value);
    const id = (message as { id?: unknown } | null)?.id;
    writeJsonRpcHttpError(res, refusal.httpStatus, refusal.code, refusal.message, id, refusal.data);
    return false;
  }
}
