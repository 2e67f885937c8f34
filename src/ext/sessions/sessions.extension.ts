import { Inject, Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
import { McpEndpointRoutes } from '../../wire/http/endpoint-routes';
import { SessionAnswers } from './calls/session-answers';
import { SessionCallRegistry } from './calls/session-call-registry';
import { SessionGate } from './calls/session-gate';
import { SessionInputRounds } from './calls/session-input-rounds';
import { McpSessions } from './mcp-sessions.service';
import { SessionBodiless } from './session-bodiless';
import { SessionCalls } from './session-calls';
import { SessionEndpoint } from './session-endpoint';
import { SessionFinder } from './session-finder';
import { SessionOpener } from './session-opener';
import { SessionMethods } from './session-methods';
import { SESSION_OPTIONS, type SessionOptions } from './session.options';
import { SessionGetStreams } from './streams/session-get-streams';
import { SessionTasks } from './tasks/session-tasks';

/**
 * Installs 2025-era sessions into the core's seams: the endpoint's 2025-era traffic (`initialize`,
 * requests without the per-request envelope, posted answers, `GET` and `DELETE`) is theirs, unless
 * `sessions.enabled` is false (then the SDK refuses it, as without the extension).
 * @internal
 */
@Injectable()
export class McpSessionsInstaller implements OnModuleInit {
  constructor(
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
    private readonly routes: McpEndpointRoutes,
    private readonly endpoint: SessionEndpoint,
  ) {}

  onModuleInit(): void {
    if (this.options.enabled) this.routes.serveLegacy(this.endpoint);
  }
}

/**
 * The sessions extension's providers, which join the `McpModule` that composes it; with the tasks
 * extension, 2025-11-25 tasks too.
 * @internal
 */
export function sessionsExtensionProviders(withTasks: boolean): Provider[] {
  return [
    SessionGate,
    McpSessions,
    SessionAnswers,
    SessionCallRegistry,
    SessionInputRounds,
    ...(withTasks ? [SessionTasks] : []),
    SessionMethods,
    SessionGetStreams,
    SessionOpener,
    SessionFinder,
    SessionCalls,
    SessionBodiless,
    SessionEndpoint,
    McpSessionsInstaller,
  ];
}
