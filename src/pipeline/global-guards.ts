import { Injectable } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import type { ServerContext } from '@modelcontextprotocol/server';
import { McpHttpRefusal } from '../kit/errors/mcp-http-refusal.error';
import type { McpOperationContext } from '../input/mcp-operation-context.interface';
import { noStepsProfile } from './no-steps-profile';
import type { CallHttp } from './operation-call';
import { OperationPipelineFactory } from './operation-pipeline.factory';
import { OperationRunner, type RunnableOperation } from './operation-runner';

/**
 * The application's global guards on their own (`APP_GUARD`, `useGlobalGuards`), for a request that
 * no single operation's guards may speak for: in guard mode they are the endpoint's
 * authentication, the guards every operation has. Built at first use, when every global guard is
 * registered (`useGlobalGuards` runs after the module is created).
 * @internal
 */
@Injectable()
export class GlobalGuards {
  private readonly pipelines: OperationPipelineFactory;
  private standIn: RunnableOperation | undefined;

  constructor(
    contextCreator: ExternalContextCreator,
    private readonly runner: OperationRunner,
  ) {
    this.pipelines = new OperationPipelineFactory(contextCreator);
  }

  /** Whether the app has any global guard. */
  get present(): boolean {
    return this.operation().guardsHandler !== undefined;
  }

  /**
   * Runs the global guards for a request named `target`: the operation context they left (the
   * caller's principal on the request), or the error a call would answer (a 401 challenge, a 403,
   * a 429) thrown.
   */
  authorize(
    target: string,
    sdk: ServerContext,
    http: CallHttp,
    params: Readonly<Record<string, unknown>> = {},
  ): Promise<McpOperationContext> {
    return this.runner.authorize({
      operation: this.operation(),
      target,
      params,
      args: {},
      http,
      sdk,
    });
  }

  /**
   * Rejects with the 401 the global guards answer this request (a credential they refuse), named as
   * `target`; resolves otherwise, whatever else they decide (a refusal of another kind is not an
   * authentication failure), and at once when the app has no global guard.
   */
  async refuseUnauthenticated(target: string, sdk: ServerContext, http: CallHttp): Promise<void> {
    if (!this.present) return;
    try {
      await this.authorize(target, sdk, http);
    } catch (error) {
      if (error instanceof McpHttpRefusal && error.httpStatus === 401) throw error;
    }
  }

  /** The stand-in operation's method: it has no guards of its own, so only the global ones apply. */
  endpoint(): void {
    // Only its (absent) enhancers matter.
  }

  private operation(): RunnableOperation {
    this.standIn ??= {
      profile: noStepsProfile('tool'),
      handler: async () => undefined,
      guardsHandler: this.pipelines.forGuards(this, 'endpoint'),
    };
    return this.standIn;
  }
}
