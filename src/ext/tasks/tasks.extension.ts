import { Inject, Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
import { TaskStatusFeed } from './events/task-status-feed';
import { McpTaskCalls } from './mcp-task-calls.service';
import { McpTasksService } from './mcp-tasks.service';
import { TaskStepExecutor } from './steps/task-step.executor';
import { TaskStepRequests } from './steps/task-step-requests';
import { TaskStepWork } from './steps/task-step.work';
import { GuardedTaskStore } from './store/guarded-task-store';
import { MCP_TASKS_EXTENSION } from './store/mcp-task.types';
import { TaskListenStreams } from './streams/task-listen-streams';
import { TaskCallers } from './task-callers';
import { TaskRecords } from './task-records';
import type { McpTasksOptions } from './mcp-tasks-options.interface';
import { TASK_STORE_PROVIDER } from './store/task-store.provider';
import {
  resolveTaskOptions,
  TASK_OPTIONS,
  type ResolvedTaskOptions,
  type TaskOptionsInput,
} from './task.options';
import { McpTaskMethods } from './wire/mcp-task-methods.service';
import {
  McpCallDiverts,
  McpListenRoutes,
  McpMethodTable,
  McpServerCapabilities,
} from '../../extension-api';
import {
  TOOL_TASK_SUPPORT,
  defineMcpExtension,
  type McpExtension,
  type ToolTaskSupport,
} from '../../extension-api';

/**
 * Installs the tasks extension (`io.modelcontextprotocol/tasks`) into the core's seams: its
 * methods, the divert that turns a `tools/call` into a task, the listen streams that follow tasks,
 * and its entry in the server's capabilities — unless `tasks.enabled` is false (with
 * `forRootAsync`, whose options are not known when the module is composed).
 * @internal
 */
@Injectable()
export class McpTasksInstaller implements OnModuleInit {
  constructor(
    @Inject(TASK_OPTIONS) private readonly options: ResolvedTaskOptions,
    private readonly methods: McpMethodTable,
    private readonly diverts: McpCallDiverts,
    private readonly listen: McpListenRoutes,
    private readonly capabilities: McpServerCapabilities,
    private readonly taskMethods: McpTaskMethods,
    private readonly taskCalls: McpTaskCalls,
    private readonly taskStreams: TaskListenStreams,
  ) {}

  onModuleInit(): void {
    if (!this.options.enabled) return;
    const tasks = this.taskMethods;
    this.methods.register('tasks/get', (params, sdk, exchange) => tasks.get(params, sdk, exchange));
    this.methods.register('tasks/update', (params, sdk, exchange) =>
      tasks.update(params, sdk, exchange),
    );
    this.methods.register('tasks/cancel', (params, sdk, exchange) =>
      tasks.cancel(params, sdk, exchange),
    );
    const calls = this.taskCalls;
    this.diverts.add({
      extension: MCP_TASKS_EXTENSION,
      appliesTo: (tool) => tool.task.support !== 'forbidden',
      takes: (tool, sdk) => calls.takes(tool, sdk),
      divert: (tool, request, sdk, exchange, caller) =>
        calls.callTool(tool, request, sdk, exchange, caller),
    });
    this.listen.add(this.taskStreams);
    this.capabilities.declareExtension(MCP_TASKS_EXTENSION);
  }
}

/** The tasks extension's providers, which join the `McpModule` that composes it. */
const TASKS_EXTENSION_PROVIDERS: Provider[] = [
  TASK_STORE_PROVIDER,
  {
    // How tools' calls become tasks, for the explorer: served unless `tasks.enabled` is false.
    provide: TOOL_TASK_SUPPORT,
    useFactory: (options: ResolvedTaskOptions): ToolTaskSupport => ({
      served: options.enabled,
      ttlMs: options.ttlMs,
      maxTtlMs: options.maxTtlMs,
    }),
    inject: [TASK_OPTIONS],
  },
  GuardedTaskStore,
  TaskStatusFeed,
  TaskCallers,
  TaskStepRequests,
  TaskStepExecutor,
  TaskRecords,
  TaskStepWork,
  McpTasksService,
  McpTaskCalls,
  McpTaskMethods,
  TaskListenStreams,
  McpTasksInstaller,
];

/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, docs/tasks.md): the `tasks` option, on
 * unless `tasks.enabled` is false.
 * @internal
 */
export const tasksExtension: McpExtension<'tasks', McpTasksOptions> = defineMcpExtension<
  'tasks',
  McpTasksOptions,
  ResolvedTaskOptions
>({
  name: 'tasks',
  options: {
    key: 'tasks',
    token: TASK_OPTIONS,
    resolve: (options) => resolveTaskOptions(options as TaskOptionsInput | undefined),
  },
  providers: () => TASKS_EXTENSION_PROVIDERS,
});
