import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import {
  booleanOption,
  nonNegativeInteger,
  positiveInteger,
  stringList,
} from '../options/option-checks';
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

/** The transport options as the module options spell them. @internal */
export interface TransportOptionsInput {
  endpoint?: unknown;
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
export function resolveTransportOptions(options: TransportOptionsInput): TransportOptions {
  const endpoint = options.endpoint ?? '/mcp';
  if (typeof endpoint !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(endpoint)) {
    throw new InvalidModuleOptionsError('endpoint', 'must be an absolute path such as "/mcp"');
  }
  const json = options.json;
  return {
    endpoint: endpoint.length > 1 ? endpoint.replace(/\/+$/, '') : endpoint,
    allowedHosts: stringList('allowedHosts', options.allowedHosts),
    allowedOrigins: stringList('allowedOrigins', options.allowedOrigins),
    dnsRebindingProtection: options.disableDnsRebindingProtection !== true,
    body: {
      maxBytes: positiveInteger(
        'maxRequestBodyBytes',
        options.maxRequestBodyBytes,
        4 * 1024 * 1024,
      ),
      timeoutMs: positiveInteger('requestBodyTimeoutMs', options.requestBodyTimeoutMs, 10_000),
      maxInFlightBytes: positiveInteger(
        'maxInFlightRequestBytes',
        options.maxInFlightRequestBytes,
        32 * 1024 * 1024,
      ),
      maxDepth: positiveInteger('json.maxDepth', json?.maxDepth, 64),
      maxNumberLength: positiveInteger('json.maxNumberLength', json?.maxNumberLength, 1024),
      maxExponent: positiveInteger('json.maxExponent', json?.maxExponent, 10_000),
      maxNodes: positiveInteger('json.maxNodes', json?.maxNodes, 20_000),
      maxObjectKeys: positiveInteger('json.maxObjectKeys', json?.maxObjectKeys, 1_000),
      maxArrayLength: positiveInteger('json.maxArrayLength', json?.maxArrayLength, 10_000),
      maxStringLength: positiveInteger('json.maxStringLength', json?.maxStringLength, 1_048_576),
    },
    keepAliveMs: nonNegativeInteger('keepAliveMs', options.keepAliveMs, 15_000),
    fastPath: booleanOption('fastPath', options.fastPath, true),
  };
}
