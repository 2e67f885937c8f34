import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import type { RateLimitErrorFormat } from '../kit/errors/mcp-http-refusal.error';
import { objectOption } from '../options/option-checks';

/** How rate limits' refusals are answered. @internal */
export interface RateLimitOptions {
  readonly errors: RateLimitErrorFormat;
}

/** Injection token of the {@link RateLimitOptions}. @internal */
export const RATE_LIMIT_OPTIONS = Symbol('RateLimitOptions');

/** Checks and defaults the `rateLimits` option. @internal */
export function resolveRateLimitOptions(
  value: { errors?: RateLimitErrorFormat } | undefined,
): RateLimitOptions {
  const errors = objectOption('rateLimits', value)?.errors ?? '-32029';
  if (errors !== '-32029' && errors !== 'sep-3304')
    throw new InvalidModuleOptionsError('rateLimits.errors', 'must be "-32029" or "sep-3304"');
  return { errors };
}
