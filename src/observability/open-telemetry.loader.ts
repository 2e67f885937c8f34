let loaded: unknown;

/**
 * `@opentelemetry/api`, when the application installed it (an optional peer), else `undefined`.
 * Required once, lazily, so an app without it loads nothing and pays nothing. Typed `unknown` so
 * that no declaration file of this package imports the optional peer; the one caller casts it.
 * @internal
 */
export function loadOpenTelemetry(): unknown {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('@opentelemetry/api') as unknown;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
