/**
 * Marks the request objects of a transport whose caller is who launched the process (stdio): the
 * HTTP endpoint's resource server never saw them, so "no bearer token" says nothing about them. A
 * symbol no client can set on an HTTP request.
 * @internal
 */
export const LAUNCHED_CALLER = Symbol('nestjs-mcp launched caller');

/** Whether `raw` came over such a transport rather than over the HTTP endpoint. @internal */
export function isLaunchedCallerRequest(raw: unknown): boolean {
  return (
    raw !== null &&
    typeof raw === 'object' &&
    (raw as { [LAUNCHED_CALLER]?: unknown })[LAUNCHED_CALLER] === true
  );
}
