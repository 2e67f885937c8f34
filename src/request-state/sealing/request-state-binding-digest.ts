import { sha256Base64Url } from '../../kit/sha256';
import {
  BINDING_FIELDS,
  type RequestStateBinding,
  type RequestStateBindingField,
} from './request-state-binding';

/**
 * The binding as JSON in canonical key order: six strings and the stable params, which are
 * canonical JSON already (and self-delimiting, so they go in as they are).
 */
function canonicalBindingJson(binding: RequestStateBinding): string {
  const { definition, endpoint, method, partition, protocolVersion, stableParams, target } =
    binding;
  return `{"definition":${JSON.stringify(definition)},"endpoint":${JSON.stringify(endpoint)},"method":${JSON.stringify(method)},"params":${stableParams},"partition":${JSON.stringify(partition)},"protocolVersion":${JSON.stringify(protocolVersion)},"target":${JSON.stringify(target)}}`;
}

/** @internal */
export function bindingDigest(binding: RequestStateBinding): string {
  return sha256Base64Url(canonicalBindingJson(binding));
}

/** Characters of each field's digest: enough to tell which field changed, not to bind it. */
const FIELD_DIGEST_CHARS = 8;

function fieldValue(binding: RequestStateBinding, field: RequestStateBindingField): string {
  switch (field) {
    case 'endpoint':
      return binding.endpoint;
    case 'protocol_version':
      return binding.protocolVersion;
    case 'operation':
      return `${binding.method} ${binding.target}`;
    case 'caller':
      return binding.partition;
    case 'arguments':
      return binding.stableArguments();
    case 'params':
      return binding.stableParams;
    case 'definition':
      return binding.definition;
  }
}

/** @internal */
export function fieldDigests(binding: RequestStateBinding): string {
  let digests = '';
  for (const field of BINDING_FIELDS)
    digests += sha256Base64Url(fieldValue(binding, field)).slice(0, FIELD_DIGEST_CHARS);
  return digests;
}

/**
 * The first field whose digest differs; `params` when none does (another bound member changed).
 * @internal
 */
export function differingField(
  sealed: string,
  binding: RequestStateBinding,
): RequestStateBindingField {
  for (const [index, field] of BINDING_FIELDS.entries()) {
    const at = index * FIELD_DIGEST_CHARS;
    const digest = sha256Base64Url(fieldValue(binding, field)).slice(0, FIELD_DIGEST_CHARS);
    if (sealed.slice(at, at + FIELD_DIGEST_CHARS) !== digest) return field;
  }
  return 'params';
}
