/** The scheme of the URIs skills are served at (`skill://<name>/SKILL.md`). @internal */
export const SKILL_URI_PREFIX = 'skill://';

/** The file every skill has at its root. @internal */
export const SKILL_MANIFEST = 'SKILL.md';

/** Characters a path segment keeps as they are: what WHATWG URL serialization leaves alone. */
const KEPT_IN_SEGMENT = /^[\w!$&'()*+,.:;=@~-]$/u;

/** One path segment, percent-encoded (UTF-8) where the URL standard would not keep a character. */
function encodeSegment(segment: string): string {
  let encoded = '';
  for (const char of segment)
    encoded += KEPT_IN_SEGMENT.test(char) ? char : encodeURIComponent(char);
  return encoded;
}

/** The URI of a skill's root folder (`skill://<name>`); names are plain lowercase words. @internal */
export function skillRootUri(name: string): string {
  return `${SKILL_URI_PREFIX}${name}`;
}

/**
 * The URI of the file or folder at `path` (`/`-separated) in skill `name`, or `undefined` when it
 * cannot be written as one canonical URI (a name no URI parser gives back as written).
 * @internal
 */
export function skillPathUri(name: string, path: string): string | undefined {
  let uri: string;
  try {
    uri = `${skillRootUri(name)}/${path.split('/').map(encodeSegment).join('/')}`;
  } catch {
    return undefined; // A lone surrogate cannot be encoded.
  }
  return canonicalUri(uri) === uri ? uri : undefined;
}

/** `uri` as the URL standard writes it, or `undefined` when it does not parse. @internal */
export function canonicalUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}
