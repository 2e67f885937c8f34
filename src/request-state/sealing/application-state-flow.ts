import type { RecordIntegrity } from '../../keyring/record-integrity';

/** What a tag authenticates: the flow id, the operation, and the application's own string. */
const DOMAIN = 'application-state-flow';

/**
 * `f1.<flow id>.<tag>.` ahead of the application's string: the flow id a UUID, the tag
 * `<key id>.<HMAC>` in base64url (record-integrity.ts).
 */
const FLOW_PREFIX =
  /^f1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{1,172}\.[A-Za-z0-9_-]{43})\./;

/** The longest prefix {@link withFlow} puts ahead of an application's string, in bytes. @internal */
export const MAX_FLOW_PREFIX_BYTES = 3 + 36 + 1 + 172 + 1 + 43 + 1;

/** The operation a state is for: its method and tool or prompt name, or resource URI. @internal */
export interface OperationNamed {
  readonly method: string;
  readonly target: string;
}

/** An incoming application-protected state, its flow prefix taken off. @internal */
export interface ApplicationStateFlow {
  /** The application's own string, exactly as it returned it. */
  readonly application: string;
  /** The flow the state continues, when its prefix proved authentic. */
  readonly flowId: string | undefined;
  /** A prefix was there but did not verify (edited, or tagged under a key the keyring dropped). */
  readonly unauthenticated: boolean;
}

/**
 * The application's state as it goes on the wire: behind a prefix naming the flow, tagged under
 * the keyring for this operation and exactly this string, so a retry continues the same flow id
 * without any server memory and a client cannot name a flow of its choosing. Without a keyring key
 * (a custom protector and no keyring) the string goes out as it is and the flow is not carried.
 * @internal
 */
export function withFlow(
  integrity: RecordIntegrity,
  application: string,
  flowId: string,
  operation: OperationNamed,
): string {
  let tag: string;
  try {
    tag = integrity.tag(DOMAIN, [flowId, operation.method, operation.target, application]);
  } catch {
    return application;
  }
  return `f1.${flowId}.${tag}.${application}`;
}

/**
 * The application's string and its flow out of an incoming state. The prefix is taken off
 * whether or not it verifies: the application's part is the application's to judge, as it always
 * was, and an unverified prefix only means the flow id is not carried on (a new one is minted).
 * @internal
 */
export function flowOf(
  integrity: RecordIntegrity,
  raw: string,
  operation: OperationNamed,
): ApplicationStateFlow {
  const match = FLOW_PREFIX.exec(raw);
  if (!match) return { application: raw, flowId: undefined, unauthenticated: false };
  const application = raw.slice(match[0].length);
  const [, flowId, tag] = match;
  return integrity.verify(tag, DOMAIN, [flowId, operation.method, operation.target, application])
    ? { application, flowId, unauthenticated: false }
    : { application, flowId: undefined, unauthenticated: true };
}
