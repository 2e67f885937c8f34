import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import {
  booleanOption,
  nonNegativeInteger,
  objectOption,
  positiveInteger,
  stringList,
} from '../options/option-checks';
import { resolveDpopOptions, type DpopOptions } from './dpop.options';
import type {
  McpAuthOptions,
  McpResourceServerOptions,
  McpTokenIntrospectionOptions,
} from './mcp-auth-options.interface';

/** The resource server's options, checked and defaulted. @internal */
export interface ResourceServerOptions {
  readonly issuer: string;
  /** Accepted audiences; empty: the request's resource URL. */
  readonly audiences: readonly string[];
  readonly jwksUri: string | undefined;
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  readonly introspection: Required<McpTokenIntrospectionOptions> | undefined;
  readonly acceptTokensWithoutAudience: boolean;
  readonly requireToken: boolean;
  readonly dpop: DpopOptions;
}

/** What the transport and the discovery need of the `auth` option. @internal */
export interface AuthOptions {
  readonly resource: URL | undefined;
  readonly authorizationServers: readonly string[];
  /** Declared ones; empty: every scope an operation declares. */
  readonly scopesSupported: readonly string[];
  readonly lists: 'caller' | 'public';
  readonly resourceServer: ResourceServerOptions | undefined;
  /** Whether the RFC 9728 metadata is served (some authorization server is known). */
  readonly servesMetadata: boolean;
}

/** Injection token of the {@link AuthOptions}. @internal */
export const AUTH_OPTIONS = Symbol('AuthOptions');

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** The OAuth scope-token grammar (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\u0021\u0023-\u005B\u005D-\u007E]+$/;

function url(option: string, value: unknown): URL | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidModuleOptionsError(option, 'must be a URL');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidModuleOptionsError(option, `must be an absolute URL, got "${value}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new InvalidModuleOptionsError(option, 'must be an http(s) URL');
  if (parsed.hash) throw new InvalidModuleOptionsError(option, 'must not have a fragment');
  return parsed;
}

/** Scopes as the OAuth grammar allows them. @internal */
export function scopeList(option: string, value: unknown): string[] {
  const scopes = stringList(option, value);
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined)
    throw new InvalidModuleOptionsError(option, `"${bad}" is not an OAuth scope token`);
  return scopes;
}

function introspection(
  value: McpTokenIntrospectionOptions | undefined,
): Required<McpTokenIntrospectionOptions> | undefined {
  const option = 'auth.resourceServer.introspection';
  if (objectOption(option, value) === undefined || value === undefined) return undefined;
  url(`${option}.endpoint`, value.endpoint);
  for (const key of ['clientId', 'clientSecret'] as const)
    if (typeof value[key] !== 'string' || value[key] === '')
      throw new InvalidModuleOptionsError(`${option}.${key}`, 'must be a non-empty string');
  return {
    endpoint: value.endpoint,
    clientId: value.clientId,
    clientSecret: value.clientSecret,
    cacheTtlMs: nonNegativeInteger(`${option}.cacheTtlMs`, value.cacheTtlMs, 60_000),
    maxCacheEntries: positiveInteger(`${option}.maxCacheEntries`, value.maxCacheEntries, 10_000),
  };
}

function resourceServer(
  value: McpResourceServerOptions | undefined,
): ResourceServerOptions | undefined {
  const option = 'auth.resourceServer';
  if (objectOption(option, value) === undefined || value === undefined) return undefined;
  const issuer = url(`${option}.issuer`, value.issuer);
  if (!issuer) throw new InvalidModuleOptionsError(`${option}.issuer`, 'is required');
  const audience = value.audience;
  const audiences = stringList(
    `${option}.audience`,
    typeof audience === 'string' ? [audience] : audience,
  );
  url(`${option}.jwksUri`, value.jwksUri);
  const algorithms = stringList(`${option}.algorithms`, value.algorithms);
  if (algorithms.some((alg) => alg.toLowerCase() === 'none' || alg.startsWith('HS')))
    throw new InvalidModuleOptionsError(
      `${option}.algorithms`,
      'accepts asymmetric signature algorithms only (no "none", no HS*)',
    );
  const skew = nonNegativeInteger(
    `${option}.clockToleranceSeconds`,
    value.clockToleranceSeconds,
    30,
  );
  if (skew > 300)
    throw new InvalidModuleOptionsError(`${option}.clockToleranceSeconds`, 'must be at most 300');
  return {
    issuer: value.issuer,
    audiences,
    jwksUri: value.jwksUri,
    algorithms: algorithms.length > 0 ? algorithms : DEFAULT_ALGORITHMS,
    clockToleranceSeconds: skew,
    introspection: introspection(value.introspection),
    acceptTokensWithoutAudience: booleanOption(
      `${option}.acceptTokensWithoutAudience`,
      value.acceptTokensWithoutAudience,
      false,
    ),
    requireToken: booleanOption(`${option}.requireToken`, value.requireToken, true),
    dpop: resolveDpopOptions(value.dpop),
  };
}

/** Checks and defaults the `auth` option; startup fails naming a bad entry. @internal */
export function resolveAuthOptions(value: McpAuthOptions | undefined): AuthOptions {
  const auth = objectOption('auth', value) ?? {};
  const lists = auth.lists ?? 'caller';
  if (lists !== 'caller' && lists !== 'public')
    throw new InvalidModuleOptionsError('auth.lists', 'must be "caller" or "public"');
  const server = resourceServer(auth.resourceServer);
  const declared = stringList('auth.authorizationServers', auth.authorizationServers);
  declared.forEach((entry, index) => url(`auth.authorizationServers[${index}]`, entry));
  const authorizationServers = declared.length > 0 ? declared : server ? [server.issuer] : [];
  return {
    resource: url('auth.resource', auth.resource),
    authorizationServers,
    scopesSupported: scopeList('auth.scopesSupported', auth.scopesSupported),
    lists,
    resourceServer: server,
    servesMetadata: authorizationServers.length > 0,
  };
}
