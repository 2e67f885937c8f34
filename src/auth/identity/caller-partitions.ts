import { Injectable, Logger, Inject } from '@nestjs/common';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import { andThen, type MaybePromise } from '../../kit/maybe-promise';
import { portInstanceOnceFilled } from '../../options/forwarding-port';
import type { DetachedTaskStep } from './detached-task-step';
import {
  ANONYMOUS_PARTITION,
  McpAuthorizationPartitionResolver,
} from './authorization-partition.resolver';

/**
 * Names the caller of a call: its authorization partition, as the module's partition resolver
 * (the `identity.partitionResolver` option, one the application provides, or the default) names it. Warns
 * once when a request with credentials still resolves to `anonymous`.
 * @internal
 */
@Injectable()
export class CallerPartitions {
  private readonly logger = new Logger('McpRequestState');
  private warned = false;
  /** The resolver itself, not its port's forwarding object: it is asked on every call with state. */
  private readonly resolver: () => McpAuthorizationPartitionResolver;

  constructor(
    @Inject(McpAuthorizationPartitionResolver)
    resolver: McpAuthorizationPartitionResolver,
  ) {
    this.resolver = portInstanceOnceFilled(resolver);
  }

  /**
   * The caller's partition: at once when the resolver answers synchronously (the default does). A
   * task step away from its request (`detached`) is its task's caller, decided when the task was made.
   */
  resolve(context: McpOperationContext, detached?: DetachedTaskStep): MaybePromise<string> {
    if (detached !== undefined) return detached.partition;
    return andThen(this.resolver().resolve(context), (partition) => {
      if (partition === ANONYMOUS_PARTITION && !this.warned) this.warnIfCredentialed(context);
      return partition;
    });
  }

  private warnIfCredentialed(context: McpOperationContext): void {
    const headers = context.http.request.headers;
    if (headers.authorization === undefined && headers.cookie === undefined) return;
    this.warned = true;
    this.logger.warn(
      'A request with credentials (Authorization header or cookie) has its request state bound to the ' +
        '"anonymous" partition, so every caller shares it. Put the authenticated user on req.user ' +
        '(with an "id" field, or name the field with the identity.userIdField option) or req.auth, or provide ' +
        'an McpAuthorizationPartitionResolver. This warning is shown once.',
    );
  }
}
