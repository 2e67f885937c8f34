/** DI token of the validated, defaulted module options. @internal */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP_RESOLVED_OPTIONS');
