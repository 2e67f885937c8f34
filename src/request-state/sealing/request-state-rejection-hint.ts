import type {
  RequestStateFailureDetail,
  RequestStateFailureReason,
} from './request-state-protection.error';

/**
 * What an operator can do about a refused state, appended to its log line (never sent): the
 * reasons whose cause is usually the deployment rather than the client.
 * @internal
 */
export function rejectionHint(
  reason: RequestStateFailureReason,
  detail: RequestStateFailureDetail | undefined,
): string {
  if (reason === 'unknown_key')
    return ' — sealed under a key id this instance does not hold: a key removed too early, or instances with different keyrings (see docs/key-rotation.md)';
  if (detail === 'earlier_format')
    return ' — sealed by an earlier build of nestjs-mcp (format 3): the flow starts again';
  if (detail === 'definition')
    return ' — sealed under another definition of the operation (a deploy or a run-time registration changed its name, schemas or declarations): the flow starts again';
  if (detail === 'issued_in_future')
    return ' — issued more than 5 s in the future: check the clocks of the fleet';
  return '';
}
