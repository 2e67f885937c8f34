// Type-checked (not run) by the pack-and-install test: the `nestjs-mcp/testing` subpath.
import { createTestOperationContext } from 'nestjs-mcp/testing';

const ctx = createTestOperationContext({ target: 'greet', user: { id: 'alice' } });
export const principal: unknown = ctx.http.request.user;
export const reports: number = ctx.progressReports.length;
