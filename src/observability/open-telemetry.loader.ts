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

/** Where `@opentelemetry/api` 1.x keeps its global providers (one registry per major version). */
const OPEN_TELEMETRY_REGISTRY = Symbol.for('opentelemetry.js.api.1');

interface OpenTelemetryRegistry {
  readonly trace?: unknown;
  readonly metrics?: unknown;
}

/**
 * Whether a tracer or meter provider may be registered: the API's own registry of global providers
 * holds one. When it holds neither, one property read says so (the API's getters cost far more, on
 * every call).
 * @internal
 */
export function anyProviderRegistered(): boolean {
  const registry = (globalThis as Record<symbol, OpenTelemetryRegistry | undefined>)[
    OPEN_TELEMETRY_REGISTRY
  ];
  return registry !== undefined && (registry.trace !== undefined || registry.metrics !== undefined);
}
