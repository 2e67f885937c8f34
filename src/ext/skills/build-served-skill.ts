import { createHash } from 'node:crypto';
import type { Resource } from '@modelcontextprotocol/server';
import {
  DIRECTORY_MIME_TYPE,
  type DirectoryResource,
} from '@modelcontextprotocol/server/ext/skills';
import { EncodedJsonString } from '../../kit/encoded-json';
import { InvalidSkillError } from './invalid-skill.error';
import type { DirectoryChild, ServedSkill, SkillAccess, SkillFileContents } from './served-skill';
import type { SkillFileSet } from './skill-files';
import { skillFrontmatter } from './skill-frontmatter';
import type { SkillLimits } from './skill.options';
import { skillMimeType } from './skill-mime-type';
import { SKILL_MANIFEST, skillPathUri, skillRootUri } from './skill-uri';
import { PagedListing } from '../../extension-api';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` as text when decoding loses nothing (a byte-order mark kept), else `undefined`. */
function losslessText(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function byUri(a: { uri: string }, b: { uri: string }): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/** A file's `resources/read` contents, its text or base64 encoded as JSON once, here. */
function fileContents(
  uri: string,
  mimeType: string,
  content: Buffer,
  text: string | undefined,
): SkillFileContents {
  const value = new EncodedJsonString(text ?? content.toString('base64'));
  const entry = Object.freeze(
    text === undefined ? { uri, mimeType, blob: value } : { uri, mimeType, text: value },
  );
  // The entry's JSON: its encoded value, and the few bytes of its URI, media type and keys.
  const bytes = value.byteLength + Buffer.byteLength(JSON.stringify({ uri, mimeType, text: '' }));
  return Object.freeze({ entry, bytes });
}

/** A skill's entries never run as operations: lists and reads run only their guards. */
const NEVER_RUN = (): Promise<unknown> =>
  Promise.reject(new Error('A skill has no method to run; only its guards run'));

/**
 * Builds one skill from its files, as it will be served: `SKILL.md`'s frontmatter checked against
 * the Agent Skills rules (its name must be `folderName`), every file digested (`sha256:` + hex of
 * its bytes) and turned into the `resources/read` contents it answers (text when its bytes are
 * UTF-8, else base64 — exactly the bytes digested), and each folder's children for directory
 * reads. A file that breaks a rule fails, naming it.
 * @internal
 */
export function buildServedSkill(
  set: SkillFileSet,
  folderName: string,
  access: SkillAccess,
  pageSize: number,
  limits: SkillLimits,
): ServedSkill {
  const manifestAt = `${set.location}/${SKILL_MANIFEST}`;
  const manifest = set.files.get(SKILL_MANIFEST);
  if (!manifest) throw new InvalidSkillError(set.location, `has no ${SKILL_MANIFEST} at its root`);
  const markdown = losslessText(manifest);
  if (markdown === undefined) throw new InvalidSkillError(manifestAt, 'is not valid UTF-8');
  const parsed = skillFrontmatter(markdown, folderName, limits.maxFrontmatterBytes);
  if (parsed.problem !== undefined) throw new InvalidSkillError(manifestAt, parsed.problem);
  const frontmatter = parsed.frontmatter;
  const name = frontmatter.name;
  const files = new Map<string, SkillFileContents>();
  const resources: { uri: string; digest: string; size: number }[] = [];
  const children = new Map<string, DirectoryResource[]>([['', []]]);
  for (const folder of set.folders) children.set(folder, []);
  let bytes = 0;
  for (const [path, content] of set.files) {
    const uri = skillPathUri(name, path);
    if (uri === undefined)
      throw new InvalidSkillError(`${set.location}/${path}`, 'its name cannot be written as a URI');
    const text = losslessText(content);
    const mimeType = skillMimeType(baseName(path), text !== undefined);
    const contents = fileContents(uri, mimeType, content, text);
    // Counted against one caller's share while it is sent: larger, it could never be sent.
    if (contents.bytes > limits.maxInFlightReadBytesPerCaller)
      throw new InvalidSkillError(
        `${set.location}/${path}`,
        `its resources/read answer would be ${contents.bytes} bytes of JSON, more than ${limits.maxInFlightReadBytesPerCaller} (skills.maxInFlightReadBytesPerCaller)`,
      );
    files.set(uri, contents);
    const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
    resources.push({ uri, digest, size: content.length });
    children
      .get(parentOf(path))
      ?.push({ uri, name: baseName(path), mimeType, size: content.length });
    bytes += content.length;
  }
  for (const folder of set.folders) {
    const uri = skillPathUri(name, folder);
    if (uri === undefined)
      throw new InvalidSkillError(
        `${set.location}/${folder}`,
        'its name cannot be written as a URI',
      );
    children
      .get(parentOf(folder))
      ?.push({ uri, name: baseName(folder), mimeType: DIRECTORY_MIME_TYPE });
  }
  const folders = new Map<string, PagedListing<DirectoryResource, DirectoryChild>>();
  for (const [path, entries] of children) {
    const uri = path === '' ? skillRootUri(name) : (skillPathUri(name, path) as string);
    const listed = entries
      .sort(byUri)
      .map((listing) => ({ name: listing.uri, listing: Object.freeze(listing) }));
    folders.set(uri, new PagedListing('resources', listed, pageSize));
  }
  const uri = skillPathUri(name, SKILL_MANIFEST) as string;
  const resource: Resource = {
    uri,
    name,
    description: frontmatter.description,
    mimeType: 'text/markdown',
    size: manifest.length,
  };
  const runnable = { ...access, handler: NEVER_RUN };
  return {
    name: uri,
    listing: deepFreeze({ uri, frontmatter, resources: resources.sort(byUri) }),
    resource: { name: uri, listing: Object.freeze(resource), ...runnable },
    files,
    folders,
    bytes,
    location: set.location,
    ...runnable,
  };
}

/** `value`, frozen all the way down: it is handed to every request as it is. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
