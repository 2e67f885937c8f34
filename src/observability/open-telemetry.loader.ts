import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the module uses it. @internal */
export type OpenTelemetry = typeof OpenTelemetryApi;

let loaded: OpenTelemetry | null | undefined;

/**
 * `@opentelemetry/api`, when the application installed it (an optional peer), else `undefined`.
 * Required once, lazily, so an app without it loads nothing and pays nothing.
 * @internal
 */
export function loadOpenTelemetry(): OpenTelemetry | undefined {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('@opentelemetry/api') as OpenTelemetry;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
