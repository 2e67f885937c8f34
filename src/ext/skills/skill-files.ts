import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { quoted } from '../../kit/quoted';
import { InvalidSkillError } from './invalid-skill.error';
import type { SkillLimits } from './skill.options';

/** One skill's files as read: bytes by `/`-separated path under its folder, and its folders. @internal */
export interface SkillFileSet {
  /** Where the skill came from, for messages: its folder, or the `@McpSkill()` method. */
  readonly location: string;
  readonly files: ReadonlyMap<string, Buffer>;
  /** Every folder under the skill's root (empty ones too), by path. */
  readonly folders: ReadonlySet<string>;
}

const NOT_FOLLOWED =
  'symlinks and other special files are not served (copy the file into the skill instead)';

/** Whether a file or folder name is left out of a skill: hidden ones (`.git`, `.DS_Store`). */
function hidden(name: string): boolean {
  return name.startsWith('.');
}

/** Fails when a skill holds more than its bound of files and folders together. */
function checkEntryCount(location: string, entries: number, limits: SkillLimits): void {
  if (entries > limits.maxFilesPerSkill)
    throw new InvalidSkillError(
      location,
      `more than ${limits.maxFilesPerSkill} files and folders (skills.maxFilesPerSkill)`,
    );
}

/** Fails when a folder `depth` levels below a skill's root is deeper than its bound. */
function checkDepth(location: string, depth: number, limits: SkillLimits, file = ''): void {
  if (depth > limits.maxFolderDepth)
    throw new InvalidSkillError(
      location,
      `${file}folders nested more than ${limits.maxFolderDepth} deep (skills.maxFolderDepth)`,
    );
}

/** Fails when `bytes` of files exceed a skill's bound. */
function checkSkillBytes(location: string, bytes: number, limits: SkillLimits): void {
  if (bytes > limits.maxSkillBytes)
    throw new InvalidSkillError(
      location,
      `more than ${limits.maxSkillBytes} bytes of files (skills.maxSkillBytes)`,
    );
}

/** Files read or stat'ed at once while a skill folder loads: the disk's queue, not the loop's. */
const READ_CONCURRENCY = 16;

/** `work` for each item, `READ_CONCURRENCY` at a time, results in the items' order. */
async function inTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
  return results;
}

/**
 * Reads one skill folder: every file under it (hidden ones left out), each checked against the
 * bounds before it is read — files and folders are counted as they are found, and every size is
 * known (stat) before any file is read, so an oversized folder fails before it fills memory. Files
 * are read a few at a time. A symlink or special file fails, naming it.
 * @internal
 */
export async function readSkillFolder(folder: string, limits: SkillLimits): Promise<SkillFileSet> {
  const paths: string[] = [];
  const folders = new Set<string>();
  const visit = async (path: string, depth: number): Promise<void> => {
    const entries = await readdir(join(folder, path), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (hidden(entry.name)) continue;
      const child = path === '' ? entry.name : `${path}/${entry.name}`;
      if (entry.isDirectory()) {
        checkDepth(join(folder, child), depth + 1, limits);
        folders.add(child);
        checkEntryCount(folder, paths.length + folders.size, limits);
        await visit(child, depth + 1);
        continue;
      }
      if (!entry.isFile()) throw new InvalidSkillError(join(folder, child), NOT_FOLLOWED);
      paths.push(child);
      checkEntryCount(folder, paths.length + folders.size, limits);
    }
  };
  await visit('', 0);
  const sizes = await inTurn(paths, async (path) => (await stat(join(folder, path))).size);
  let bytes = 0;
  for (const [index, size] of sizes.entries()) {
    if (size > limits.maxFileBytes)
      throw new InvalidSkillError(
        join(folder, paths[index]),
        `larger than ${limits.maxFileBytes} bytes (skills.maxFileBytes)`,
      );
    bytes += size;
    checkSkillBytes(folder, bytes, limits);
  }
  const contents = await inTurn(paths, (path) => readFile(join(folder, path)));
  const files = new Map<string, Buffer>();
  bytes = 0;
  for (const [index, content] of contents.entries()) {
    // Changed between stat and read: the bounds hold for what was read.
    if (content.length > limits.maxFileBytes)
      throw new InvalidSkillError(
        join(folder, paths[index]),
        `larger than ${limits.maxFileBytes} bytes (skills.maxFileBytes)`,
      );
    bytes += content.length;
    checkSkillBytes(folder, bytes, limits);
    files.set(paths[index], content);
  }
  return { location: folder, files, folders };
}

/**
 * The skill folders of a skills folder: each folder in it (hidden ones left out) is one skill;
 * plain files beside them (a README) are not served. A symlink fails, naming it.
 * @internal
 */
export async function skillFoldersIn(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const folders: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (hidden(entry.name) || entry.isFile()) continue;
    if (!entry.isDirectory()) throw new InvalidSkillError(join(root, entry.name), NOT_FOLLOWED);
    folders.push(entry.name);
  }
  return folders;
}

/**
 * The files an application built (`@McpSkill()` returning `{ name, files }`): text as UTF-8, each
 * path checked (relative, `/`-separated, no empty, `.` or `..` segment) and held to the bounds (its
 * folders, which its paths imply, counted with its files).
 * @internal
 */
export function skillFilesOf(
  location: string,
  record: Readonly<Record<string, string | Uint8Array>>,
  limits: SkillLimits,
): SkillFileSet {
  if (record === null || typeof record !== 'object')
    throw new InvalidSkillError(location, '"files" must map paths to strings or bytes');
  const files = new Map<string, Buffer>();
  const folders = new Set<string>();
  let bytes = 0;
  for (const [path, content] of Object.entries(record)) {
    const file = `file ${quoted(path)}: `;
    const segments = path.split('/');
    if (
      segments.some(
        (segment) =>
          segment === '' || segment === '.' || segment === '..' || segment.includes('\0'),
      )
    )
      throw new InvalidSkillError(
        location,
        file + 'a path must be relative and /-separated, without empty, "." or ".." segments',
      );
    if (segments.some(hidden))
      throw new InvalidSkillError(
        location,
        file + 'hidden files and folders (".name") are not served',
      );
    const buffer =
      typeof content === 'string'
        ? Buffer.from(content, 'utf8')
        : content instanceof Uint8Array
          ? Buffer.from(content.buffer, content.byteOffset, content.byteLength)
          : undefined;
    if (!buffer) throw new InvalidSkillError(location, file + 'content must be a string or bytes');
    if (buffer.length > limits.maxFileBytes)
      throw new InvalidSkillError(
        location,
        file + `larger than ${limits.maxFileBytes} bytes (skills.maxFileBytes)`,
      );
    bytes += buffer.length;
    checkSkillBytes(location, bytes, limits);
    checkDepth(location, segments.length - 1, limits, file);
    // A copy: what was digested is what is served, whatever the application does to its array later.
    files.set(path, typeof content === 'string' ? buffer : Buffer.from(buffer));
    for (let end = path.lastIndexOf('/'); end > 0; end = path.lastIndexOf('/', end - 1))
      folders.add(path.slice(0, end));
    checkEntryCount(location, files.size + folders.size, limits);
  }
  return { location, files, folders };
}
