import { NestjsMcpError } from '../kit/errors/nestjs-mcp.error';

/**
 * Thrown when an input request is built with parameters the protocol or the module's safety
 * policy does not allow (a nested form schema, a secret-bearing form field, an unsafe URL).
 * It is a server bug: if it escapes a handler the client gets a bare -32603.
 *
 * @publicApi
 */
export class InvalidInputRequestError extends NestjsMcpError {}
