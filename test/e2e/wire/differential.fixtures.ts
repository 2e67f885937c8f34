import { ThrottlerException } from '@nestjs/throttler';
import {
  BadRequestException,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  Module,
  NotFoundException,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { IsInt, Max } from 'class-validator';
import {
  McpArgs,
  McpProtocolException,
  McpPrompt,
  McpResource,
  McpTool,
  McpToolError,
} from '../../../src/index';
import { guardedRequest } from '../../fixtures/guarded-request';

/** What each `throws_*` operation throws, by the name of the docs/errors.md row it exercises. */
const THROWN = {
  protocol: () => new McpProtocolException(-32050, 'Quota exhausted', { retryAfterMs: 500 }),
  /** The urlElicitationRequired error of 2025-era revisions, which 2026-07-28 has no use for. */
  url_elicitation: () =>
    new McpProtocolException(-32042, 'Sign in first', {
      elicitations: [{ mode: 'url', url: 'https://login.example.com/' }],
    }),
  capability: () =>
    new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { sampling: {} } },
      'Missing required client capabilities: sampling',
    ),
  forbidden: () => new ForbiddenException('not for you'),
  unauthorized: () => new UnauthorizedException('token expired'),
  throttled: () => new ThrottlerException(),
  bad_request: () => new BadRequestException(['title must be a string', 'title is too long']),
  not_found: () => new NotFoundException('Nothing under that name'),
  tool_error: () => new McpToolError('The printer is out of paper'),
  server_error: () => new InternalServerErrorException('database exploded'),
  error: () => new Error('a bug, with a secret: 1234'),
  value: () => 'a thrown string, with a secret: 1234',
} as const;

type Thrown = keyof typeof THROWN;

/** The kinds of thrown values, for building the corpus. */
export const THROWN_KINDS = Object.keys(THROWN) as Thrown[];

class CountDto {
  @IsInt() @Max(10) count!: number;
}

function raise(kind: Thrown): never {
  throw THROWN[kind]();
}

/**
 * A tool, a prompt and a resource for every kind of value an operation may throw (the "What an
 * operation throws" table of docs/errors.md), for the fast-path differential test: `throws_<kind>`
 * (tool and prompt) and `throws://<kind>` (resource), the kind named in the `kind` argument.
 */
@Injectable()
export class DifferentialOperations {
  @McpTool({ name: 'throws', description: 'Throws what its kind names' })
  throwsTool(@McpArgs('kind') kind: Thrown): never {
    raise(kind);
  }

  @McpPrompt({
    name: 'throws',
    description: 'Throws what its kind names',
    arguments: [{ name: 'kind', required: true }],
  })
  throwsPrompt(@McpArgs('kind') kind: Thrown): never {
    raise(kind);
  }

  @McpResource({ uriTemplate: 'throws://{kind}', name: 'throws', description: 'Throws its kind' })
  throwsResource(@McpArgs('kind') kind: Thrown): never {
    raise(kind);
  }

  @McpTool({ name: 'count_to', description: 'Counts to a small number (a class-validator DTO)' })
  countTo(@McpArgs() { count }: CountDto): string {
    return Array.from({ length: count }, (_, i) => i + 1).join(' ');
  }
}

/** Signs the caller in with the scopes of its `x-diff-scope` header, when it has one. */
@Injectable()
export class ScopeHeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = guardedRequest(context);
    const scope = request.headers['x-diff-scope'];
    if (scope !== undefined) request.user = { id: 'diff', scope };
    return true;
  }
}

/** A tool that needs a scope (the scope check runs after the guard that signs the caller in). */
@Injectable()
export class ScopedOperations {
  @McpTool({ name: 'scoped', description: 'Needs diff:write', scopes: ['diff:write'] })
  @UseGuards(ScopeHeaderGuard)
  scoped(): string {
    return 'scoped';
  }
}

/** The operations of {@link DifferentialOperations}. */
@Module({ providers: [DifferentialOperations, ScopedOperations, ScopeHeaderGuard] })
export class DifferentialFixturesModule {}
