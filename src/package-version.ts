// Read at runtime so the reported version follows package.json without a build step.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const PACKAGE_VERSION: string = (require('../package.json') as { version: string }).version;
