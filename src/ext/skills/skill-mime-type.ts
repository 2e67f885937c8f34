/** Media types of the files skills usually hold, by extension. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  csv: 'text/csv',
  xml: 'application/xml',
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/typescript',
  py: 'text/x-python',
  sh: 'application/x-sh',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/**
 * The media type a skill file is served with: by its extension, else `text/plain` for text and
 * `application/octet-stream` for bytes. (`mime-types` maps `.ts` to MPEG transport streams; skills
 * hold scripts.)
 * @internal
 */
export function skillMimeType(fileName: string, isText: boolean): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  return Object.hasOwn(BY_EXTENSION, extension)
    ? BY_EXTENSION[extension]
    : isText
      ? 'text/plain'
      : 'application/octet-stream';
}
