// `nestjs-mcp/extension`: what an extension of its own needs — defining it, composing it
// (`McpModule.forRoot({ extensions: [configured(notes, { maxNotes: 10 })] })`), its ports, and the
// core's seams it installs into: methods, its capability entry, `resources/list` entries and
// `resources/read` of URIs of its own. The module's built-in extensions (tasks, sessions, skills)
// are built the same way on a wider door inside the package; see docs/architecture.md ("Writing an
// extension"). Counted apart from the other faces (`src/index.spec.ts`), at most 10 names.

export { configured, defineMcpExtension, type McpExtension } from '../options/mcp-extension';
export { port } from '../options/port';
export { portProvider } from '../options/port.provider';
export { McpMethodTable } from '../wire/protocol/method-table';
export { McpServerCapabilities } from '../wire/protocol/server-capabilities';
export { McpListedResources, unguardedResource } from '../operations/discovery/listed-resources';
export { McpResourceReaders } from '../wire/protocol/resource-readers';
