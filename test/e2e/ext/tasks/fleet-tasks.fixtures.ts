import {
  Injectable,
  Module,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  McpModule,
  McpContext,
  McpOperationContext,
  McpTool,
  type McpModuleOptions,
} from '../../../../src/index';
import { isDetachedMcpTaskStep } from '../../../../src/entry/tasks';
import type Redis from 'ioredis';
import { BullMqTaskRunner, RedisTaskStore } from '../../../../src/entry/redis';
import { startTestServer, type TestServer } from '../../../utils/bootstrap';
import { serverForSuite } from '../../../utils/suite-server';
import { type SuiteScope } from '../../../utils/suite-resource';

/** Authenticates from the `x-user` header; a detached task step already carries its caller. */
@Injectable()
class HeaderUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (isDetachedMcpTaskStep(context)) return true;
    return authenticateFromHeader(context);
  }
}

/** The same guard without the opt-in: a detached step has no header to authenticate. */
@Injectable()
class StrictHeaderUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return authenticateFromHeader(context);
  }
}

function authenticateFromHeader(context: ExecutionContext): boolean {
  const request = context
    .switchToHttp()
    .getRequest<{ headers: Record<string, unknown>; user?: unknown }>();
  const name = request.headers['x-user'];
  if (typeof name !== 'string' || name === '') throw new UnauthorizedException();
  request.user = { name };
  return true;
}

/** Which task steps started and which saw their signal abort, on one instance. */
@Injectable()
export class FleetProbe {
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  private finish!: () => void;
  /** Settles once {@link release} is called: what `patient_report` waits for on this instance. */
  readonly released = new Promise<void>((resolve) => (this.finish = resolve));

  /** Lets this instance's `patient_report` steps finish. */
  release(): void {
    this.finish();
  }
}

@Injectable()
class FleetTools {
  constructor(private readonly probe: FleetProbe) {}

  @McpTool({ description: 'Runs until its task is cancelled', taskSupport: 'required' })
  async long_step(@McpContext() ctx: McpOperationContext): Promise<string> {
    const taskId = ctx.task?.id ?? '?';
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      this.probe.started.push(taskId);
    });
    this.probe.aborted.push(taskId);
    return 'stopped';
  }

  @McpTool({
    description: 'Runs until its instance is released, unless stopped',
    taskSupport: 'required',
  })
  async patient_report(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.probe.started.push(ctx.task?.id ?? '?');
    await new Promise<void>((resolve, reject) => {
      void this.probe.released.then(resolve);
      ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
    });
    const user = ctx.http.request.user as { name?: string } | undefined;
    return `patient report for ${user?.name ?? 'nobody'}`;
  }

  @McpTool({ description: 'Reports whose task it is, after a moment', taskSupport: 'required' })
  async owner_report(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.probe.started.push(ctx.task?.id ?? '?');
    await new Promise((done) => setTimeout(done, 100));
    const user = ctx.http.request.user as { name?: string } | undefined;
    const headers = Object.keys(ctx.http.request.headers).length;
    return `report for ${user?.name ?? 'nobody'} (${headers === 0 ? 'detached' : 'on its request'})`;
  }
}

/**
 * One instance of a fleet serving the tools above; `options` brings the shared store and runner.
 * `detachedSteps: 'refused'` installs a guard that does not let detached task steps through.
 */
export function fleetTasksApp(
  options: Partial<McpModuleOptions>,
  detachedSteps: 'accepted' | 'refused' = 'accepted',
) {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'fleet-e2e', version: '1.0.0' },
        identity: {
          partitionResolver: {
            resolve: (ctx: McpOperationContext) => String(ctx.http.request.headers['x-user']),
          },
        },
        ...options,
      }),
    ],
    providers: [
      FleetProbe,
      FleetTools,
      {
        provide: APP_GUARD,
        useClass: detachedSteps === 'accepted' ? HeaderUserGuard : StrictHeaderUserGuard,
      },
    ],
  })
  class FleetTasksAppModule {}
  return FleetTasksAppModule;
}

/**
 * A BullMQ fleet of two on one Redis `client`, sharing `keyring`, the task store under `name:` and
 * the queue `name`: A (Express) runs every step on its worker, B (Fastify) only answers.
 */
export function bullMqFleetForSuite(
  client: Redis,
  keyring: { active: string; keys: Record<string, string> },
  name: string,
  scope?: SuiteScope,
): { a: TestServer; b: TestServer } {
  const options = (worker: boolean) => ({
    keyring: { active: keyring.active, keys: { ...keyring.keys } },
    tasks: {
      store: new RedisTaskStore(client, { keyPrefix: `${name}:` }),
      runner: new BullMqTaskRunner(client, { queueName: name, worker }),
    },
  });
  return {
    a: serverForSuite(
      () => startTestServer('express', { imports: [fleetTasksApp(options(true))] }),
      scope,
    ),
    b: serverForSuite(
      () => startTestServer('fastify', { imports: [fleetTasksApp(options(false))] }),
      scope,
    ),
  };
}
