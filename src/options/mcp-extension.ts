import type { Provider } from '@nestjs/common';

/**
 * What an extension reads of the module options: its key, how the value is checked and defaulted,
 * and the DI token its providers inject the result under.
 * @publicApi
 */
export interface McpExtensionOptions<Key extends string, Options, Resolved> {
  /** Its key in the module options (`tasks`, `sessions`, `skills`). */
  readonly key: Key;
  /** The token under which the resolved options are provided to the extension's own providers. */
  readonly token: symbol;
  /**
   * Checks the value and fills its defaults; throws `InvalidModuleOptionsError` naming the first
   * bad option (`tasks.maxTtlMs`). Runs once, when the module starts.
   */
  readonly resolve: (value: Options | undefined) => Resolved;
}

/**
 * An extension, as a value the module composes: everything about it — its options, its providers,
 * when it is on, what it builds on — lives in its own folder, and the module reads it from here.
 * Its providers install its behaviour into the core's seams (`McpMethodTable`, `McpListedResources`
 * and the others of `nestjs-mcp/extension`) when the module initializes. Made with
 * {@link defineMcpExtension}.
 * @publicApi
 */
export interface McpExtension<Key extends string = string, Options = unknown, Resolved = unknown> {
  /** Its name: the folder it lives in, and how other extensions' `dependsOn` name it. */
  readonly name: string;
  /** Its options, when it has any. */
  readonly options?: McpExtensionOptions<Key, Options, Resolved>;
  /**
   * Whether options given to `forRoot` turn it on; with `forRootAsync` (options not known when the
   * module is composed) it is composed anyway, and its installer reads its resolved options.
   * Default: on unless `enabled: false`.
   */
  readonly enabledBy?: (options: Options | undefined) => boolean;
  /** Its providers, which join the `McpModule` that composes it; `composed` names every extension beside it. */
  readonly providers: (composed: ReadonlySet<string>) => Provider[];
  /** The extensions it may build on when they are composed beside it (never required). */
  readonly dependsOn?: readonly string[];
  /** Options it was configured with by {@link configured} (an extension outside the built-in list). */
  readonly configuredOptions?: Options;
}

/**
 * Defines an extension. Keep the value in `<name>.extension.ts` of the extension's folder; the
 * module composes it from its list (the built-in ones) or from `McpModule.forRoot({ extensions })`.
 *
 * @example
 * ```ts
 * export const notesExtension = defineMcpExtension({
 *   name: 'notes',
 *   options: { key: 'notes', token: NOTES_OPTIONS, resolve: resolveNotesOptions },
 *   providers: () => [NoteStoreProvider, NotesInstaller],
 * });
 * ```
 * @publicApi
 */
export function defineMcpExtension<Key extends string, Options, Resolved>(
  definition: McpExtension<Key, Options, Resolved>,
): McpExtension<Key, Options, Resolved> {
  return Object.freeze({ ...definition });
}

/**
 * An extension outside the module options' own keys, with its options: what
 * `McpModule.forRoot({ extensions: [configured(notesExtension, { greeting: 'hi' })] })` composes.
 * @publicApi
 */
export function configured<Key extends string, Options, Resolved>(
  extension: McpExtension<Key, Options, Resolved>,
  options: Options,
): McpExtension<Key, Options, Resolved> {
  return Object.freeze({ ...extension, configuredOptions: options });
}

/** Any extension, whatever its options (a list of them holds different ones). @publicApi */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMcpExtension = McpExtension<string, any, any>;

/**
 * The module options an extension list adds: each extension's key, optional, with its options'
 * type.
 * @publicApi
 */
export type McpExtensionOptionsOf<List extends readonly AnyMcpExtension[]> = {
  [
    Extension in List[number] as Extension extends McpExtension<infer Key, infer _Options, infer _R>
      ? Key
      : never
  ]?: Extension extends McpExtension<string, infer Options, infer _R> ? Options : never;
};
