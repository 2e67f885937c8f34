import { parse } from 'yaml';
import type { McpJsonValue } from '../../kit/json-value';
import { quoted } from '../../kit/quoted';

/** The frontmatter of a `SKILL.md`, as JSON: what a skill's entry carries verbatim. @internal */
export type SkillFrontmatter = { readonly name: string; readonly description: string } & Readonly<
  Record<string, McpJsonValue>
>;

/** The frontmatter, or the rule it breaks. @internal */
export type FrontmatterOutcome =
  | { readonly frontmatter: SkillFrontmatter; readonly problem?: undefined }
  | { readonly problem: string };

/** The Agent Skills name rule: lowercase letters and digits, single hyphens between them. */
const SKILL_NAME = /^[a-z\d]+(?:-[a-z\d]+)*$/;
/** Keys of `metadata` no skill may use: SEP-2640 reserves them for MCP extensions. */
const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

/** Characters, as the Agent Skills limits count them (code points). */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const broken = (problem: string): FrontmatterOutcome => ({ problem });

/**
 * Uses of YAML aliases a frontmatter may make (each weighted by the nodes it repeats, as the `yaml`
 * package counts them). Aliases are for sharing, not for multiplying a skill's entry:
 * {@link jsonBytesOver} bounds what they expand to.
 */
const MAX_ALIAS_COUNT = 32;

/**
 * Whether `value` as JSON takes more than `most` UTF-8 bytes, counted without serializing it (an
 * alias repeats a node without copying it, so its JSON can be far larger than the YAML) and without
 * recursion; it stops as soon as the count passes `most`.
 */
function jsonBytesOver(value: unknown, most: number): boolean {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') bytes += Buffer.byteLength(JSON.stringify(next));
    else if (Array.isArray(next)) {
      bytes += 1 + next.length; // brackets and commas
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      const entries = Object.entries(next);
      bytes += 1 + entries.length;
      for (const [key, item] of entries) {
        bytes += Buffer.byteLength(JSON.stringify(key)) + 1;
        pending.push(item);
      }
    } else bytes += String(next).length;
    if (bytes > most) return true;
  }
  return false;
}

/**
 * The YAML between a `SKILL.md`'s leading `---` lines (a byte-order mark and CRLF line ends
 * allowed), or `undefined` when there is no such block.
 */
function frontmatterBlock(markdown: string): string | FrontmatterOutcome {
  const text = (markdown.startsWith('\uFEFF') ? markdown.slice(1) : markdown).replaceAll(
    '\r\n',
    '\n',
  );
  if (!text.startsWith('---\n')) return broken('SKILL.md must begin with a "---" line');
  const close = /^---[\t ]*$/m.exec(text.slice(4));
  if (!close) return broken('the frontmatter has no closing "---" line');
  return text.slice(4, 4 + close.index);
}

/** The first key path under `value` that JSON cannot carry as YAML typed it, if any. */
function unrepresentable(value: unknown, path: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unrepresentable(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return `${path}.${key}`;
      const found = unrepresentable(item, `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  return path;
}

/** The rule `fields` breaks of Agent Skills and SEP-2640, if any. */
function ruleBroken(fields: Record<string, McpJsonValue>, folderName: string): string | undefined {
  const { name, description, compatibility, metadata } = fields;
  if (typeof name !== 'string' || name.length > 64 || !SKILL_NAME.test(name))
    return 'the frontmatter "name" must be 1-64 lowercase letters, digits and single hyphens (no leading, trailing or double hyphen)';
  if (name !== folderName)
    return `the frontmatter "name" (${quoted(name)}) must equal the skill's folder name (${quoted(folderName)})`;
  if (
    typeof description !== 'string' ||
    description.trim() === '' ||
    characters(description) > 1024
  )
    return 'the frontmatter "description" must be a non-empty string of at most 1,024 characters';
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > 500)
  )
    return 'the frontmatter "compatibility" must be a string of 1-500 characters';
  if (metadata === undefined) return undefined;
  if (
    metadata === null ||
    typeof metadata !== 'object' ||
    Array.isArray(metadata) ||
    Object.values(metadata).some((value) => typeof value !== 'string')
  )
    return 'the frontmatter "metadata" must map strings to strings';
  const reserved = Object.keys(metadata).find((key) => key.startsWith(RESERVED_METADATA_PREFIX));
  return reserved
    ? `the frontmatter "metadata" key ${quoted(reserved)} is reserved for MCP extensions`
    : undefined;
}

/**
 * The frontmatter of skill `folderName`'s `SKILL.md`, checked against the Agent Skills rules
 * (name 1–64 lowercase letters, digits and single hyphens, equal to the folder; a description of
 * 1–1,024 characters; `compatibility` 1–500 characters; `metadata` strings to strings) and
 * SEP-2640's (no `metadata` key under `io.modelcontextprotocol/`), and at most `maxBytes` as JSON
 * (what every entry of the skill carries) — or the first rule it breaks. Parsed by a full YAML 1.2
 * parser (core schema), as the conformance suite reads it, with at most {@link MAX_ALIAS_COUNT}
 * alias uses.
 * @internal
 */
export function skillFrontmatter(
  markdown: string,
  folderName: string,
  maxBytes: number,
): FrontmatterOutcome {
  const block = frontmatterBlock(markdown);
  if (typeof block !== 'string') return block;
  let parsed: unknown;
  try {
    parsed = parse(block, { prettyErrors: false, maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The parser's message may quote the file (an alias's name): escaped like any name.
    return broken(`the frontmatter is not valid YAML (${quoted((error as Error).message)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return broken('the frontmatter must be a YAML mapping');
  if (jsonBytesOver(parsed, maxBytes))
    return broken(
      `the frontmatter takes more than ${maxBytes} bytes as JSON, YAML aliases expanded (skills.maxFrontmatterBytes)`,
    );
  const bad = unrepresentable(parsed, 'frontmatter');
  if (bad)
    return broken(
      `${quoted(bad)} is not a JSON value (a string, finite number, true, false, null, list or mapping)`,
    );
  const fields = parsed as Record<string, McpJsonValue>;
  const problem = ruleBroken(fields, folderName);
  return problem === undefined ? { frontmatter: fields as SkillFrontmatter } : broken(problem);
}
