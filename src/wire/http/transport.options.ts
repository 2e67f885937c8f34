import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import {
  booleanOption,
  nonNegativeInteger,
  objectOption,
  positiveInteger,
  positiveIntegers,
  stringList,
} from '../../options/option-checks';
import type { JsonBodyLimits } from './json-body-limits';

/** What the HTTP endpoint needs: where it is, what it admits, how it reads bodies. @internal */
export interface TransportOptions {
  /** Normalised endpoint path (no trailing slash). */
  readonly endpoint: string;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly dnsRebindingProtection: boolean;
  readonly body: JsonBodyLimits;
  readonly keepAliveMs: number;
  readonly fastPath: boolean;
}

/** Injection token of the resolved {@link TransportOptions}. @internal */
export const TRANSPORT_OPTIONS = Symbol('TransportOptions');

/** The `http` options as the module options spell them. @internal */
export interface TransportOptionsInput {
  allowedHosts?: unknown;
  allowedOrigins?: unknown;
  disableDnsRebindingProtection?: unknown;
  maxRequestBodyBytes?: unknown;
  requestBodyTimeoutMs?: unknown;
  maxInFlightRequestBytes?: unknown;
  keepAliveMs?: unknown;
  fastPath?: unknown;
  json?: Partial<Record<keyof JsonBodyLimits, unknown>>;
}

/** Fills the transport defaults and checks each value, naming the first bad option. @internal */
export function resolveTransportOptions(
  endpointOption: unknown,
  http: TransportOptionsInput | undefined,
): TransportOptions {
  const endpoint = endpointOption ?? '/mcp';
  if (typeof endpoint !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(endpoint)) {
    throw new InvalidModuleOptionsError('endpoint', 'must be an absolute path such as "/mcp"');
  }
  const options = objectOption('http', http) ?? {};
  const json = objectOption('http.json', options.json);
  return {
    endpoint: endpoint.length > 1 ? endpoint.replace(/\/+$/, '') : endpoint,
    allowedHosts: stringList('http.allowedHosts', options.allowedHosts),
    allowedOrigins: stringList('http.allowedOrigins', options.allowedOrigins),
    dnsRebindingProtection: options.disableDnsRebindingProtection !== true,
    body: {
      maxBytes: positiveInteger(
        'http.maxRequestBodyBytes',
        options.maxRequestBodyBytes,
        4 * 1024 * 1024,
      ),
      timeoutMs: positiveInteger('http.requestBodyTimeoutMs', options.requestBodyTimeoutMs, 10_000),
      maxInFlightBytes: positiveInteger(
        'http.maxInFlightRequestBytes',
        options.maxInFlightRequestBytes,
        32 * 1024 * 1024,
      ),
      ...positiveIntegers('http.json', json, {
        maxDepth: 64,
        maxNumberLength: 1024,
        maxExponent: 10_000,
        maxNodes: 20_000,
        maxObjectKeys: 1_000,
        maxArrayLength: 10_000,
        maxStringLength: 1_048_576,
      }),
    },
    keepAliveMs: nonNegativeInteger('http.keepAliveMs', options.keepAliveMs, 15_000),
    fastPath: booleanOption('http.fastPath', options.fastPath, true),
  };
}
