import { InvalidModuleOptionsError } from './invalid-module-options.error';

/**
 * Refuses an option whose value exceeds another's (a per-caller share above the whole, a default
 * above its maximum), naming both.
 * @internal
 */
export function mustNotExceed(option: string, value: number, ceiling: string, limit: number): void {
  if (value > limit) throw new InvalidModuleOptionsError(option, `must not exceed ${ceiling}`);
}
