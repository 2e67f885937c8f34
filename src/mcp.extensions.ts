import { auditExtension } from './ext/audit/audit.extension';
import { sessionsExtension } from './ext/sessions/sessions.extension';
import { skillsExtension } from './ext/skills/skills.extension';
import { tasksExtension } from './ext/tasks/tasks.extension';

/**
 * The extensions every `McpModule` composes, in order: each a value defined in its own folder
 * under `src/ext/` (docs/architecture.md, "Extensions"). A new built-in extension is its folder and
 * a line here; an application's own goes in `McpModule.forRoot({ extensions })`. No entry point
 * exports it, but its type ships: `McpModuleOptions` is assembled from it, so each extension's
 * value is typed with its options only (`McpExtension<'tasks', McpTasksOptions>`).
 * @publicApi
 */
export const MCP_EXTENSIONS = [
  tasksExtension,
  sessionsExtension,
  skillsExtension,
  auditExtension,
] as const;
