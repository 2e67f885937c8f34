// `nestjs-mcp/tasks`: what an application writes against to keep tasks in a store of its own
// (`tasks.store`, or a provider of `TaskStore`), to run their steps elsewhere (`tasks.runner`), and
// to tell a detached task step in its guards. The `tasks` module option needs nothing from here;
// the Redis store and the BullMQ runner are in `nestjs-mcp/redis`.

export { MCP_TASKS_EXTENSION, type McpTaskRecord } from '../ext/tasks/store/mcp-task.types';
export { TaskStore } from '../ext/tasks/store/task-store.interface';
export { MemoryTaskStore } from '../ext/tasks/store/memory-task.store';
export { TaskCapacityError } from '../ext/tasks/store/task-capacity.error';
export { TaskRunner, type TaskWork } from '../ext/tasks/runner/task-runner.interface';
export { InProcessTaskRunner } from '../ext/tasks/runner/in-process-task.runner';
export { isDetachedMcpTaskStep } from '../operations/context/is-detached-mcp-task-step';
