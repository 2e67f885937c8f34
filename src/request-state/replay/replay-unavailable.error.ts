import { NestjsMcpError } from '../../kit/errors/nestjs-mcp.error';

/** A replay-style ask in an operation that did not opt in with `replay: true` (a server bug). @internal */
export class ReplayUnavailableError extends NestjsMcpError {
  constructor(ask: string) {
    super(
      `ctx.${ask}() needs \`replay: true\` in the operation's decorator options, which keeps the ` +
        'answers in framework-protected request state (docs/replay.md)',
    );
  }
}
