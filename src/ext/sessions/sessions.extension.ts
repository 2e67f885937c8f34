import { Inject, Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
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
import type { McpSessionsOptions } from './mcp-sessions-options.interface';
import {
  resolveSessionOptions,
  SESSION_OPTIONS,
  type SessionOptions,
  type SessionOptionsInput,
} from './session.options';
import { SESSION_STORE_PROVIDER } from './store/session-store.provider';
import { SessionGetStreams } from './streams/session-get-streams';
import { SessionTasks } from './tasks/session-tasks';
import { McpEndpointRoutes } from '../../extension-api';
import { defineMcpExtension, type McpExtension } from '../../extension-api';

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
 */
function sessionsExtensionProviders(withTasks: boolean): Provider[] {
  return [
    SESSION_STORE_PROVIDER,
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

/**
 * 2025-era sessions (docs/clients.md): the `sessions` option, on unless `sessions.enabled` is
 * false; built on the tasks extension for 2025-11-25 tasks when it is composed too.
 * @internal
 */
export const sessionsExtension: McpExtension<'sessions', McpSessionsOptions> = defineMcpExtension<
  'sessions',
  McpSessionsOptions,
  SessionOptions
>({
  name: 'sessions',
  options: {
    key: 'sessions',
    token: SESSION_OPTIONS,
    resolve: (options) => resolveSessionOptions(options as SessionOptionsInput | undefined),
  },
  dependsOn: ['tasks'],
  providers: (composed) => sessionsExtensionProviders(composed.has('tasks')),
});
