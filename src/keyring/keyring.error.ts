import { NestjsMcpError } from '../kit/errors/nestjs-mcp.error';

/**
 * A keyring operation was refused (bad key id or material, unknown key, conflicting bytes,
 * removing the active key). The message names the key id, never its bytes.
 *
 * @publicApi
 */
export class KeyringError extends NestjsMcpError {}
