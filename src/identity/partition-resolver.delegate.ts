import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { andThen, type MaybePromise } from '../util/maybe-promise';
import type { DetachedTaskStep } from './detached-task-step';
import { providedInstance } from '../ports/app-provided-instance';
import {
  ANONYMOUS_PARTITION,
  DefaultAuthorizationPartitionResolver,
  McpAuthorizationPartitionResolver,
} from './authorization-partition.resolver';

/**
 * The partition resolver the module binds state with, chosen once at startup: the
 * `partitionResolver` option, or one the application provides in any module, or the default.
 * Warns once when a request with credentials still resolves to `anonymous`.
 * @internal
 */
@Injectable()
export class PartitionResolverDelegate implements OnModuleInit {
  private readonly logger = new Logger('McpRequestState');
  private resolver: McpAuthorizationPartitionResolver | undefined;
  private warned = false;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly modules: ModulesContainer,
  ) {}

  onModuleInit(): void {
    this.resolver =
      providedInstance<McpAuthorizationPartitionResolver>(
        this.modules,
        McpAuthorizationPartitionResolver,
        'partitionResolver',
        this.options.partitionResolver,
      ) ?? new DefaultAuthorizationPartitionResolver(this.options.userIdField);
  }

  /**
   * The caller's partition: at once when the resolver answers synchronously (the default does). A
   * task step away from its request (`detached`) is its task's caller, decided when the task was made.
   */
  resolve(context: McpRequestContext, detached?: DetachedTaskStep): MaybePromise<string> {
    if (!this.resolver) throw new Error('McpModule has not finished initializing');
    if (detached !== undefined) return detached.partition;
    return andThen(this.resolver.resolve(context), (partition) => {
      if (partition === ANONYMOUS_PARTITION && !this.warned) this.warnIfCredentialed(context);
      return partition;
    });
  }

  private warnIfCredentialed(context: McpRequestContext): void {
    const headers = context.http.request.headers;
    if (headers.authorization === undefined && headers.cookie === undefined) return;
    this.warned = true;
    this.logger.warn(
      'A request with credentials (Authorization header or cookie) has its request state bound to the ' +
        '"anonymous" partition, so every caller shares it. Put the authenticated user on req.user ' +
        '(with an "id" field, or name the field with the userIdField option) or req.auth, or provide ' +
        'an McpAuthorizationPartitionResolver. This warning is shown once.',
    );
  }
}
