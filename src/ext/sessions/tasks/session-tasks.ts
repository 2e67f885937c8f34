import { UrlElicitations } from '../calls/url-elicitations';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ProtocolError, type CallToolRequest } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { TaskStatusFeed } from '../../tasks/events/task-status-feed';
import { McpTaskMethods } from '../../tasks/wire/mcp-task-methods.service';
import { clip } from '../../../kit/clip';
import { sha256Base64Url } from '../../../kit/sha256';
import { streamChannel } from '../calls/session-channel';
import { SessionAnswers } from '../calls/session-answers';
import { SessionInputRounds } from '../calls/session-input-rounds';
import type { SessionRequest } from '../calls/session-request';
import { ownMeta, sessionEnvelope } from '../calls/session-server-context';
import { McpSessions } from '../mcp-sessions.service';
import { SESSION_OPTIONS, type SessionOptions } from '../session.options';
import { createTaskResult2025, task2025, taskPayload2025 } from './task-wire-2025';
import { quoted } from '../../../kit/quoted';
import {
  ConsumedStateStore,
  DivertedCall,
  McpDispatcher,
  type HttpExchange,
  type ToolEntry,
} from '../../../extension-api';

type Params = Record<string, unknown>;
type Detailed = Record<string, unknown> & { taskId: string; status: string };

/** Task ids a session remembers for `tasks/list`. */
const MAX_LISTED_TASKS = 100;

/**
 * 2025-11-25 tasks for 2025-era sessions, served by the module's tasks engine: a `tools/call`
 * with `params.task` creates a task (the same record, runner and store as the tasks extension),
 * `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` answer in 2025-11-25 shapes, and a
 * task waiting for input has its input requests asked as server-to-client requests (tagged with
 * the task) on whichever of the session's requests looks at it — `tasks/result` waits for them,
 * `tasks/get` sends them and answers at once — each key asked once at a time, fleet-wide. The
 * answers resume the task as `tasks/update` would.
 * @internal
 */
@Injectable()
export class SessionTasks implements OnModuleDestroy {
  private readonly logger = new Logger('McpSessions');
  /** Ends the waits of task asks that outlive their request, at shutdown. */
  private readonly shutdown = new AbortController();

  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly methods: McpTaskMethods,
    private readonly feed: TaskStatusFeed,
    private readonly sessions: McpSessions,
    private readonly rounds: SessionInputRounds,
    private readonly answers: SessionAnswers,
    @Inject(ConsumedStateStore) private readonly consumedStates: ConsumedStateStore,
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
  ) {}

  onModuleDestroy(): void {
    this.shutdown.abort();
  }

  /** A task-augmented `tools/call`: the task it created, as `CreateTaskResult`. */
  async callTool(tool: ToolEntry, request: SessionRequest): Promise<Params> {
    if (tool.task.support === 'forbidden')
      throw new ProtocolError(
        McpErrorCode.MethodNotFound,
        `Tool "${clip(tool.name)}" does not support task-augmented execution`,
      );
    if (tool.task.creation === 'deferred')
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Tool "${clip(tool.name)}" starts its task itself, which 2025-11-25 tasks cannot express; call it without params.task`,
      );
    const { task: _task, ...params } = (request.message.params ?? {}) as Params;
    // The envelope travels in the stored call, so later steps see what this client declared.
    const taskParams = {
      ...params,
      _meta: { ...ownMeta(request.message), ...sessionEnvelope(request.session, true) },
    };
    const sdk = request.sdk(true);
    const exchange: HttpExchange = {
      ...request.exchange,
      message: { ...request.message, params: taskParams },
    };
    const answered: unknown = await this.dispatcher.callTool(
      { method: 'tools/call', params: taskParams } as unknown as CallToolRequest,
      sdk,
      exchange,
    );
    if (!(answered instanceof DivertedCall)) return answered as Params;
    const created = answered.result;
    await this.remember(request, String(created.taskId));
    return createTaskResult2025(created);
  }

  async get(params: Params, request: SessionRequest): Promise<Params> {
    const task = await this.detailed(params, request);
    if (task.status === 'input_required') void this.askFor(task, request, false);
    return task2025(task);
  }

  /** Waits for the task to end, asking its input on this request meanwhile; its result or error. */
  async result(params: Params, request: SessionRequest): Promise<Params> {
    for (;;) {
      const task = await this.detailed(params, request);
      switch (task.status) {
        case 'completed':
          return taskPayload2025(task.taskId, task.result as Params | undefined);
        case 'failed': {
          const error = (task.error ?? {}) as { code?: number; message?: string; data?: unknown };
          throw new ProtocolError(
            error.code ?? McpErrorCode.InternalError,
            error.message ?? 'Internal error',
            error.data,
          );
        }
        case 'cancelled':
          throw new ProtocolError(McpErrorCode.InvalidParams, 'Task cancelled');
        case 'input_required':
          if (await this.askFor(task, request, true)) continue;
          await this.changeOf(task, request.signal);
          break;
        default:
          await this.changeOf(task, request.signal);
      }
      if (request.signal.aborted) throw new ProtocolError(McpErrorCode.InternalError, 'Cancelled');
    }
  }

  async cancel(params: Params, request: SessionRequest): Promise<Params> {
    await this.methods.cancel(params, request.sdk(true), request.exchange);
    return task2025(await this.detailed(params, request));
  }

  /** The tasks this session created that still exist, newest last. */
  async list(request: SessionRequest): Promise<Params> {
    const tasks: Params[] = [];
    for (const taskId of request.session.taskIds) {
      try {
        tasks.push(task2025(await this.detailed({ taskId }, request)));
      } catch {
        // Expired or gone: no longer listed.
      }
    }
    return { tasks };
  }

  private async detailed(params: Params, request: SessionRequest): Promise<Detailed> {
    return (await this.methods.get(params, request.sdk(true), request.exchange)) as Detailed;
  }

  private async remember(request: SessionRequest, taskId: string): Promise<void> {
    await this.sessions
      .change(request.session, (current) => ({
        ...current,
        taskIds: [...current.taskIds.filter((id) => id !== taskId), taskId].slice(
          -MAX_LISTED_TASKS,
        ),
      }))
      .catch(() => undefined);
  }

  /**
   * Asks the client the task's outstanding input requests that no request of the fleet is asking
   * now, and records each answer on the task (which resumes it once all are in). With `wait`,
   * resolves once those answers are recorded; answers whether it asked anything.
   */
  private async askFor(task: Detailed, request: SessionRequest, wait: boolean): Promise<boolean> {
    const requests = (task.inputRequests ?? {}) as Params;
    const claimed: Params = {};
    const store = this.consumedStates;
    for (const key of Object.keys(requests)) {
      const claim = sha256Base64Url(
        `session-task-ask\n${request.session.sessionId}\n${task.taskId}\n${String(task.lastUpdatedAt)}\n${key}`,
      );
      if (await store.consume(claim, Date.now() + this.options.answerTimeoutMs).catch(() => false))
        Object.defineProperty(claimed, key, { value: requests[key], enumerable: true });
    }
    if (Object.keys(claimed).length === 0) return false;
    // `tasks/get` answers at once: its asks outlive it, bounded by the answer timeout.
    const signal = wait ? request.signal : this.shutdown.signal;
    const channel = streamChannel(this.answers, request.session.sessionId, request.stream, signal);
    // Each ask is a CLIENT span under the tasks/get or tasks/result that asked, when traced.
    const session = request.session;
    const from = {
      parent: undefined,
      sessionId: session.sessionId,
      protocolVersion: session.protocolVersion,
    };
    // A URL ask carries the elicitationId 2025-11-25 requires.
    const urlTagged = new UrlElicitations().idsFor(claimed);
    const asking = this.rounds.ask(urlTagged, channel, task.taskId, from).then(async (asked) => {
      if (!asked.ok) {
        // The client's own error message: quoted, as anything a client chose.
        this.logger.debug(
          `Task ${task.taskId}: input not answered (${quoted(asked.error.message, 256)})`,
        );
        return;
      }
      const answers = asked.responses;
      const update = { taskId: task.taskId, inputResponses: answers };
      await this.methods.update(update, request.sdk(true), {
        ...request.exchange,
        message: { id: request.message.id, params: update },
        exactInputResponses: answers,
      });
    });
    const recorded = asking.catch((error: unknown) =>
      this.logger.warn(`Task ${task.taskId}: answers could not be recorded (${String(error)})`),
    );
    if (wait) await recorded;
    return true;
  }

  /** Resolves once the task's status may have changed (an event, or its poll interval), or on abort. */
  private changeOf(task: Detailed, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const interval = typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : 1_000;
      const done = () => {
        clearTimeout(timer);
        unfollow();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, interval);
      const unfollow = this.feed.follow([task.taskId], done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
